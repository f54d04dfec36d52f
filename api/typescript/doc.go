// Package typescript writes the TypeScript definitions of an ontology's
// object types, interfaces and links that Foundry's SDK generator
// (@osdk/generator) writes for @osdk/client 2.22.0, so that an
// application written against a generated SDK imports them from a
// directory of .ts files and type-checks and runs against ontoindex
// unchanged:
//
//	import { Customer, Named } from "./generated/index.js";
//	await client(Customer).where({ city: "Rome" }).fetchPage();
//	await client(Named).fetchPage();
//
// The layout is the generator's: index.ts, OntologyMetadata.ts,
// ontology/objects.ts with ontology/objects/<Type>.ts, and
// ontology/interfaces.ts with ontology/interfaces/<Interface>.ts. Each
// definition is a value the client reads at run time ({type, apiName},
// the rest it loads from the server) and a type whose
// __DefinitionMetadata carries what the client's types read at compile
// time: properties with their data types, the primary key, links with
// their targets and cardinality, the interfaces a type implements and how
// (interfaceMap), and an interface's properties, links and implementers.
//
// The metadata is the server's: data types as the Ontology API names them
// (objects.WireTypeName, with dates "datetime" as the client's types call
// them), the rids the server gives, and nullability as the generator
// derives it (every property nullable but the primary key). Generate is a
// pure function of resolved object types, their link sides and the
// interface set; `indexer osdk-types` resolves them as the engine does and
// writes the files (Write).
package typescript
