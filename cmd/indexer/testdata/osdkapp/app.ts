// An application written against the definitions `indexer osdk-types`
// writes for the demo and the shop with apidemo's interfaces: it must
// type-check with tsc --strict (TestRunOSDKTypes_tsc), and it is what a
// Foundry application does with a generated SDK.
import { createClient, type Osdk } from "@osdk/client";
import {
  $Interfaces,
  $Objects,
  $ontologyRid,
  Assignment,
  Billable,
  Customer,
  Employee,
  Member,
  Named,
  Order,
  Party,
  Tag,
} from "./generated/index.js";

export async function app(url: string, token: string): Promise<string[]> {
  const client = createClient(url, $ontologyRid, async () => token);
  const seen: string[] = [];

  // Object types: where, orderBy, the properties as the client types them.
  const page = await client(Customer)
    .where({ city: "Rome", visits: { $gt: 10 }, vip: true })
    .fetchPage({ $orderBy: { balance: "desc" }, $pageSize: 5 });
  for (const c of page.data) {
    const key: string = c.customerId;
    const name: string | undefined = c.name;
    const visits: string | undefined = c.visits; // a long
    const balance: number | undefined = c.balance;
    const since: string | undefined = c.since; // a date
    seen.push(key, name ?? "", visits ?? "", String(balance), since ?? "");

    // $as to an interface it implements: the interface's names.
    const named: Osdk.Instance<Named> = c.$as(Named);
    const label: string | undefined = named.label;
    const party = c.$as(Party);
    const city: string | undefined = party.city;
    seen.push(label ?? "", city ?? "");

    // $link: MANY is an object set, ONE an accessor.
    const orders = await c.$link.orders.fetchPage();
    for (const o of orders.data) {
      const amount: string | undefined = o.amount; // a decimal
      const at: string | undefined = o.placedAt; // a timestamp
      const payer = await o.$link.customer.fetchOne();
      seen.push(amount ?? "", at ?? "", payer.customerId);
    }
  }
  const one: Customer.OsdkInstance = await client(Customer).fetchOne("c01");
  const order = await client(Order).fetchOne(21);
  const employee = await client(Employee).fetchOne("130");
  const tags: string[] | undefined = employee.tags; // an array
  const big: string | undefined = employee.big;
  const salary: string | undefined = employee.salary;
  const age: number | undefined = employee.age;
  const active: boolean | undefined = employee.active;
  seen.push(one.customerId, String(order.orderId), (tags ?? []).join(","), big ?? "", salary ?? "", String(age), String(active));

  // A composite key: where on its properties.
  const assignments = await client(Assignment).where({ emp_id: 10, project: { $startsWith: "A" } }).fetchPage();
  seen.push(String(assignments.data.length));

  // pivotTo through links of object types, both ways.
  const romeOrders = await client(Customer).where({ city: "Rome" }).pivotTo("orders").fetchPage();
  const tagged = await client(Order).where({ status: "open" }).pivotTo("tags").fetchPage();
  const tag: Osdk.Instance<Tag> | undefined = tagged.data[0];
  seen.push(String(romeOrders.data.length), tag?.label ?? "");

  // Set algebra within a type.
  const either = client(Customer).where({ city: "Rome" }).union(client(Customer).where({ vip: true }));
  seen.push(String((await either.fetchPage()).data.length));

  // Aggregations: grouped and not.
  const byCity = await client(Customer).aggregate({
    $select: { $count: "unordered", "balance:avg": "unordered", "visits:max": "unordered" },
    $groupBy: { city: "exact" },
  });
  for (const g of byCity) {
    const n: number = g.$count;
    const avg: number | undefined = g.balance.avg;
    const c: string | undefined = g.$group.city;
    seen.push(String(n), String(avg), c ?? "");
  }
  const total = await client(Order).aggregate({ $select: { $count: "unordered", "amount:sum": "unordered" } });
  seen.push(String(total.$count));

  // Interfaces: list, where on their properties, aggregate, narrowToType,
  // $as back to an object type, and their links.
  const named = await client(Named).where({ label: { $startsWith: "A" } }).fetchPage();
  for (const n of named.data) {
    const label: string | undefined = n.label;
    const apiName: string = n.$apiName;
    seen.push(label ?? "", apiName);
    if (n.$objectType === "Customer") {
      const c = n.$as(Customer);
      seen.push(c.name ?? ""); // Named.label is Customer.name
    }
  }
  const all = await client(Named).fetchPage({ $pageSize: 10 });
  const next = all.nextPageToken ? await client(Named).fetchPage({ $pageSize: 10, $nextPageToken: all.nextPageToken }) : undefined;
  seen.push(String(next?.data.length));
  const customersOnly = await client(Named).narrowToType(Customer).fetchPage();
  const customer: Osdk.Instance<Customer> | undefined = customersOnly.data[0];
  seen.push(customer?.customerId ?? "");
  const joined = await client(Member).where({ joined: { $gte: "2020-01-01" } }).fetchPage();
  const when: string | undefined = joined.data[0]?.joined;
  seen.push(when ?? "");
  const labels = await client(Named).aggregate({ $select: { $count: "unordered" }, $groupBy: { label: "exact" } });
  seen.push(String(labels.length));
  const bills = await client(Party).where({ city: "Rome" }).pivotTo("bills").fetchPage();
  for (const b of bills.data) {
    const amount: string | undefined = b.amount;
    seen.push(amount ?? "", b.label ?? "");
  }
  const billable = await client(Billable).fetchPage();
  for (const b of billable.data) {
    const payer = await b.$link.payer.fetchOne();
    seen.push(payer.customerId);
  }
  for await (const link of client(Order).experimental_asyncIterLinks(["customer", "tags"])) {
    seen.push(link.linkType);
  }

  // The namespaces of index.ts hold every definition.
  const definitions = [$Objects.Customer.apiName, $Interfaces.Named.apiName];
  seen.push(...definitions);
  return seen;
}
