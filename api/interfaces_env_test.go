package api_test

import (
	"testing"

	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/objects"
)

// The interfaces env is the links env (Customer, Order, Tag) with three
// interfaces:
//
//   - Named {label: string}, implemented by Customer (label: name) and Tag
//     (label: label), and by Order through Billable.
//   - Billable extends Named {amount: double}, with the link payer (ONE, to
//     the object type Customer), implemented by Order (label: status,
//     amount: amount, payer: customer).
//   - Party {label: string, city: string}, implemented by Customer only,
//     with the link bills (MANY, to the interface Billable): Customer's
//     orders.
func interfaceSpecs() []objects.InterfaceSpec {
	return []objects.InterfaceSpec{
		{APIName: "Named", DisplayName: "Named", Description: "Anything with a label",
			Properties: map[string]objects.InterfacePropertySpec{"label": {DataType: "string"}}},
		{APIName: "Billable", Extends: []string{"Named"},
			Properties: map[string]objects.InterfacePropertySpec{"amount": {DataType: "double"}},
			Links:      []objects.InterfaceLinkSpec{{APIName: "payer", Target: objects.InterfaceLinkTarget{ObjectType: "Customer"}, Cardinality: "ONE"}}},
		{APIName: "Party",
			Properties: map[string]objects.InterfacePropertySpec{"label": {DataType: "string"}, "city": {DataType: "string"}},
			Links:      []objects.InterfaceLinkSpec{{APIName: "bills", Target: objects.InterfaceLinkTarget{Interface: "Billable"}, Cardinality: "MANY"}}},
	}
}

// withInterfaces adds the interfaces and the implementations above to a
// links env's config.
func withInterfaces(cfg *config.Config) {
	cfg.Interfaces = interfaceSpecs()
	impl := map[string]map[string]objects.ImplementationSpec{
		"Customer": {
			"Named": {Properties: map[string]string{"label": "name"}},
			"Party": {Properties: map[string]string{"label": "name", "city": "city"}, Links: map[string]string{"bills": "orders"}},
		},
		"Order": {"Billable": {Properties: map[string]string{"label": "status", "amount": "amount"}, Links: map[string]string{"payer": "customer"}}},
		"Tag":   {"Named": {Properties: map[string]string{"label": "label"}}},
	}
	for i := range cfg.ObjectTypes {
		cfg.ObjectTypes[i].Implements = impl[cfg.ObjectTypes[i].APIName]
	}
}

// mustInterfacesEnv is the links env of seed with the interfaces above.
func mustInterfacesEnv(tb testing.TB, seed uint64) *linksEnv {
	tb.Helper()
	return mustLinksEnv(tb, seed, withInterfaces)
}

func TestInterfacesEnv_resolves(t *testing.T) {
	e := mustInterfacesEnv(t, 1)
	set := e.cfg.InterfaceSet()
	if set == nil {
		t.Fatal("the interfaces env's config does not resolve its interfaces")
	}
	named, _ := set.Interface("Named")
	if got := named.ImplementedBy; len(got) != 3 {
		t.Errorf("Named is implemented by %v, want Customer, Order and Tag", got)
	}
}
