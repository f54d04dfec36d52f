// A property read as a type it does not have: a long is a string, a
// property may be absent.
import { createClient } from "@osdk/client";
import { Customer } from "../generated/index.js";

export async function misuse(url: string): Promise<number> {
  const client = createClient(url, "ri.ontology.main.ontology.demo", async () => "token");
  const c = await client(Customer).fetchOne("c01");
  const visits: number | undefined = c.visits; // want error
  const name: string = c.name; // want error
  return (visits ?? 0) + name.length;
}
