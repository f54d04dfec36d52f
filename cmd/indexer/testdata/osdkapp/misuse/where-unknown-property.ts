// A property the object type does not have, in where.
import { createClient } from "@osdk/client";
import { Customer } from "../generated/index.js";

export async function misuse(url: string): Promise<void> {
  const client = createClient(url, "ri.ontology.main.ontology.demo", async () => "token");
  await client(Customer).where({ nosuch: "Rome" }).fetchPage(); // want error
}
