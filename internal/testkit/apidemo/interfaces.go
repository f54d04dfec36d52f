package apidemo

import "github.com/ontoindex/ontoindex/objects"

// ShopInterfaces are the interfaces of the demo and its shop:
//
//   - Named {label: string}: Employee (name), Customer (name), Tag (label).
//   - Purchase {amount: decimal, status: string} with the link buyer (ONE,
//     to Customer): Order (amount, status, buyer: customer).
//   - Party extends Named {city: string} with the link purchases (MANY, to
//     the interface Purchase): Customer (label: name, city, purchases:
//     orders).
func ShopInterfaces() []objects.InterfaceSpec {
	str := objects.InterfacePropertySpec{DataType: "string"}
	return []objects.InterfaceSpec{
		{APIName: "Named", DisplayName: "Named", Description: "Anything with a label",
			Properties: map[string]objects.InterfacePropertySpec{"label": str}},
		{APIName: "Purchase", DisplayName: "Purchase", Description: "Something bought",
			Properties: map[string]objects.InterfacePropertySpec{"amount": {DataType: "decimal"}, "status": str},
			Links:      []objects.InterfaceLinkSpec{{APIName: "buyer", Target: objects.InterfaceLinkTarget{ObjectType: "Customer"}, Cardinality: "ONE"}}},
		{APIName: "Party", DisplayName: "Party", Extends: []string{"Named"},
			Properties: map[string]objects.InterfacePropertySpec{"city": str},
			Links:      []objects.InterfaceLinkSpec{{APIName: "purchases", Target: objects.InterfaceLinkTarget{Interface: "Purchase"}, Cardinality: "MANY"}}},
	}
}

// Implement sets what the demo's and the shop's types implement of
// ShopInterfaces, on specs from Specs and ShopSpecs.
func Implement(specs []objects.TypeSpec) {
	impl := map[string]map[string]objects.ImplementationSpec{
		"Employee": {"Named": {Properties: map[string]string{"label": "name"}}},
		"Customer": {"Party": {Properties: map[string]string{"label": "name", "city": "city"}, Links: map[string]string{"purchases": "orders"}}},
		"Order":    {"Purchase": {Properties: map[string]string{"amount": "amount", "status": "status"}, Links: map[string]string{"buyer": "customer"}}},
		"Tag":      {"Named": {Properties: map[string]string{"label": "label"}}},
	}
	for i := range specs {
		if m, ok := impl[specs[i].APIName]; ok {
			specs[i].Implements = m
		}
	}
}
