// A link of another type (Order.tags), followed from Customer and from
// an interface link of another interface (Billable.payer) from Party.
import { createClient } from "@osdk/client";
import { Customer, Party } from "../generated/index.js";

export async function misuse(url: string): Promise<void> {
  const client = createClient(url, "ri.ontology.main.ontology.demo", async () => "token");
  await client(Customer).pivotTo("tags").fetchPage(); // want error
  await client(Party).pivotTo("payer").fetchPage(); // want error
}
