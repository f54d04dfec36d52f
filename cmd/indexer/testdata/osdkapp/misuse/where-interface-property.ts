// A property of another interface (Party.city), in where on Named.
import { createClient } from "@osdk/client";
import { Named } from "../generated/index.js";

export async function misuse(url: string): Promise<void> {
  const client = createClient(url, "ri.ontology.main.ontology.demo", async () => "token");
  await client(Named).where({ city: "Rome" }).fetchPage(); // want error
}
