package apidemo

import (
	"maps"

	"github.com/ontoindex/ontoindex/objects"
)

// The interfaces of the demo and the shop, for tests of interfaces and the
// end-to-end seed (WithInterfaces adds the implementations to the specs):
//
//   - Named {label: string}: Employee (name), Customer (name) and Tag
//     (label) implement it, and Order through Billable (status).
//   - Billable extends Named {amount: decimal}, with the link payer (ONE,
//     to the object type Customer): Order (amount, customer).
//   - Party {label: string, city: string}, with the link bills (MANY, to
//     the interface Billable): Customer (name, city, orders).
//   - Member {joined: date}: Employee (hired) and Customer (since).
//
// No interface is implemented by Assignment or Ghost.
func InterfaceSpecs() []objects.InterfaceSpec {
	str := objects.InterfacePropertySpec{DataType: "string"}
	return []objects.InterfaceSpec{
		{APIName: "Named", DisplayName: "Named", Description: "Anything with a label",
			Properties: map[string]objects.InterfacePropertySpec{"label": {DataType: "string", DisplayName: "Label"}}},
		{APIName: "Billable", Description: "Something to pay", Extends: []string{"Named"},
			Properties: map[string]objects.InterfacePropertySpec{"amount": {DataType: "decimal", Description: "What it costs"}},
			Links:      []objects.InterfaceLinkSpec{{APIName: "payer", Target: objects.InterfaceLinkTarget{ObjectType: "Customer"}, Cardinality: "ONE"}}},
		{APIName: "Party",
			Properties: map[string]objects.InterfacePropertySpec{"label": str, "city": str},
			Links:      []objects.InterfaceLinkSpec{{APIName: "bills", Target: objects.InterfaceLinkTarget{Interface: "Billable"}, Cardinality: "MANY"}}},
		{APIName: "Member", Properties: map[string]objects.InterfacePropertySpec{"joined": {DataType: "date"}}},
	}
}

// Implementations are how the demo's and the shop's object types
// implement InterfaceSpecs, by object type.
func Implementations() map[string]map[string]objects.ImplementationSpec {
	return map[string]map[string]objects.ImplementationSpec{
		"Employee": {
			"Named":  {Properties: map[string]string{"label": "name"}},
			"Member": {Properties: map[string]string{"joined": "hired"}},
		},
		"Customer": {
			"Named":  {Properties: map[string]string{"label": "name"}},
			"Party":  {Properties: map[string]string{"label": "name", "city": "city"}, Links: map[string]string{"bills": "orders"}},
			"Member": {Properties: map[string]string{"joined": "since"}},
		},
		"Order": {"Billable": {Properties: map[string]string{"label": "status", "amount": "amount"}, Links: map[string]string{"payer": "customer"}}},
		"Tag":   {"Named": {Properties: map[string]string{"label": "label"}}},
	}
}

// WithInterfaces returns copies of specs (of Specs and ShopSpecs) that
// implement InterfaceSpecs; a config with them needs the interfaces too.
func WithInterfaces(specs []objects.TypeSpec) []objects.TypeSpec {
	impls := Implementations()
	out := make([]objects.TypeSpec, len(specs))
	for i, s := range specs {
		s.Implements = maps.Clone(impls[s.APIName])
		out[i] = s
	}
	return out
}
