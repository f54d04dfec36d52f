// Narrowing Named to an object type that does not implement it.
import { createClient } from "@osdk/client";
import { Assignment, Named } from "../generated/index.js";

export async function misuse(url: string): Promise<void> {
  const client = createClient(url, "ri.ontology.main.ontology.demo", async () => "token");
  await client(Named).narrowToType(Assignment).fetchPage(); // want error
}
