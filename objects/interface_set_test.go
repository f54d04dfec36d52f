package objects

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
)

// interfaceTestConfig is a small ontology with interfaces, built afresh on
// each call so a case may edit it: Customer, Order (customer ONE to
// Customer, reverse orders MANY; tags MANY to Tag through a join table)
// and Tag; Named {label}, Billable extends Named {amount; payer ONE to
// Customer}, Party {label, city; bills MANY to the interface Billable}.
// Customer implements Named and Party, Order Billable (so Named too), Tag
// Named.
func interfaceTestConfig() ([]InterfaceSpec, []TypeSpec) {
	specs := []InterfaceSpec{
		{APIName: "Named", Properties: map[string]InterfacePropertySpec{"label": {DataType: "string"}}},
		{APIName: "Billable", Extends: []string{"Named"},
			Properties: map[string]InterfacePropertySpec{"amount": {DataType: "double"}},
			Links:      []InterfaceLinkSpec{{APIName: "payer", Target: InterfaceLinkTarget{ObjectType: "Customer"}, Cardinality: "ONE"}}},
		{APIName: "Party",
			Properties: map[string]InterfacePropertySpec{"label": {DataType: "string"}, "city": {DataType: "string"}},
			Links:      []InterfaceLinkSpec{{APIName: "bills", Target: InterfaceLinkTarget{Interface: "Billable"}, Cardinality: "MANY"}}},
	}
	types := []TypeSpec{
		{APIName: "Customer", Table: "c.s.customers",
			Properties: map[string]PropertySpec{"id": {Column: "id"}, "name": {Column: "name"}, "city": {Column: "city"}},
			Implements: map[string]ImplementationSpec{
				"Named": {Properties: map[string]string{"label": "name"}},
				"Party": {Properties: map[string]string{"label": "name", "city": "city"}, Links: map[string]string{"bills": "orders"}},
			}},
		{APIName: "Order", Table: "c.s.orders",
			Properties: map[string]PropertySpec{"id": {Column: "id"}, "customerId": {Column: "customer_id"}, "amount": {Column: "amount"}, "status": {Column: "status"}},
			Links: []LinkSpec{
				{APIName: "customer", Target: "Customer", ForeignKey: "customerId", ReverseAPIName: "orders"},
				{APIName: "tags", Target: "Tag", Through: &ThroughSpec{Table: "c.s.order_tags", SourceKey: "order_id", TargetKey: "tag_code"}},
			},
			Implements: map[string]ImplementationSpec{
				"Billable": {Properties: map[string]string{"label": "status", "amount": "amount"}, Links: map[string]string{"payer": "customer"}},
			}},
		{APIName: "Tag", Table: "c.s.tags",
			Properties: map[string]PropertySpec{"code": {Column: "code"}, "label": {Column: "label"}},
			Implements: map[string]ImplementationSpec{"Named": {Properties: map[string]string{"label": "label"}}}},
	}
	return specs, types
}

func TestResolveInterfaces(t *testing.T) {
	type (
		ifaces = []InterfaceSpec
		types  = []TypeSpec
	)
	tests := []struct {
		name  string
		edit  func(ifaces, types) (ifaces, types)
		field string // the field the error names
		msg   string // a fragment of its message
	}{
		{"unknown interface", func(s ifaces, ts types) (ifaces, types) {
			ts[0].Implements["Nmed"] = ts[0].Implements["Named"]
			return s, ts
		}, "objectTypes[0].implements.Nmed", `"Nmed" is not an interface (did you mean "Named"?)`},
		{"interface property not mapped", func(s ifaces, ts types) (ifaces, types) {
			delete(ts[0].Implements["Party"].Properties, "city")
			return s, ts
		}, "objectTypes[0].implements.Party.properties", "interface properties city of Party are not mapped to properties of Customer"},
		{"inherited interface property not mapped", func(s ifaces, ts types) (ifaces, types) {
			delete(ts[1].Implements["Billable"].Properties, "label")
			return s, ts
		}, "objectTypes[1].implements.Billable.properties", "interface properties label of Billable are not mapped"},
		{"unknown interface property", func(s ifaces, ts types) (ifaces, types) {
			ts[2].Implements["Named"].Properties["lable"] = "label"
			return s, ts
		}, "objectTypes[2].implements.Named.properties.lable", `"lable" is not a property of interface Named (did you mean "label"?)`},
		{"property the type lacks", func(s ifaces, ts types) (ifaces, types) {
			ts[2].Implements["Named"].Properties["label"] = "lable"
			return s, ts
		}, "objectTypes[2].implements.Named.properties.label", `Tag has no property "lable" (did you mean "label"?)`},
		{"extends an unknown interface", func(s ifaces, ts types) (ifaces, types) {
			s[1].Extends = []string{"Nameed"}
			return s, ts
		}, "interfaces[1].extends[0]", `"Nameed" is not an interface (did you mean "Named"?)`},
		{"cycle in extends", func(s ifaces, ts types) (ifaces, types) {
			s[0].Extends = []string{"Billable"}
			return s, ts
		}, "interfaces[0].extends", "makes a cycle: Named -> Billable -> Named"},
		{"extends itself", func(s ifaces, ts types) (ifaces, types) {
			s[2].Extends = []string{"Party"}
			return s, ts
		}, "interfaces[2].extends", "makes a cycle: Party -> Party"},
		{"link to another object type than the interface link's", func(s ifaces, ts types) (ifaces, types) {
			ts[1].Implements["Billable"].Links["payer"] = "tags"
			return s, ts
		}, "objectTypes[1].implements.Billable.links.payer", "link type tags leads to Tag, but interface link Billable.payer leads to object type Customer"},
		{"link to a type that does not implement the target interface", func(s ifaces, ts types) (ifaces, types) {
			s[2].Links[0].Target = InterfaceLinkTarget{Interface: "Party"}
			return s, ts
		}, "objectTypes[0].implements.Party.links.bills", "link type orders leads to Order, which does not implement Party, the target of interface link Party.bills"},
		{"cardinality differs", func(s ifaces, ts types) (ifaces, types) {
			s[1].Links[0].Cardinality = "MANY"
			return s, ts
		}, "objectTypes[1].implements.Billable.links.payer", "link type customer has cardinality ONE, interface link Billable.payer has MANY"},
		{"link the type lacks", func(s ifaces, ts types) (ifaces, types) {
			ts[1].Implements["Billable"].Links["payer"] = "costumer"
			return s, ts
		}, "objectTypes[1].implements.Billable.links.payer", `Order has no link type "costumer" (did you mean "customer"?)`},
		{"link the interface lacks", func(s ifaces, ts types) (ifaces, types) {
			ts[1].Implements["Billable"].Links["payee"] = "customer"
			return s, ts
		}, "objectTypes[1].implements.Billable.links.payee", `"payee" is not a link type of interface Billable (did you mean "payer"?)`},
		{"two interfaces of one name", func(s ifaces, ts types) (ifaces, types) {
			return append(s, InterfaceSpec{APIName: "named"}), ts
		}, "interfaces[3].apiName", `"named" is already used by interfaces[0]`},
		{"two interface links of one name", func(s ifaces, ts types) (ifaces, types) {
			s[1].Links = append(s[1].Links, s[1].Links[0])
			return s, ts
		}, "interfaces[1].links[1].apiName", `"payer" is declared twice`},
		{"name of an object type", func(s ifaces, ts types) (ifaces, types) {
			return append(s, InterfaceSpec{APIName: "Tag"}), ts
		}, "interfaces[3].apiName", `"Tag" is also an object type`},
		{"no name", func(s ifaces, ts types) (ifaces, types) {
			return append(s, InterfaceSpec{}), ts
		}, "interfaces[3].apiName", "is required"},
		{"bad data type", func(s ifaces, ts types) (ifaces, types) {
			s[0].Properties["label"] = InterfacePropertySpec{DataType: "text"}
			return s, ts
		}, "interfaces[0].properties.label.dataType", `"text" must be one of string, boolean`},
		{"bad array element type", func(s ifaces, ts types) (ifaces, types) {
			s[0].Properties["label"] = InterfacePropertySpec{DataType: "array<text>"}
			return s, ts
		}, "interfaces[0].properties.label.dataType", `"array<text>" must be one of`},
		{"inherited data type conflicts", func(s ifaces, ts types) (ifaces, types) {
			s[1].Properties["label"] = InterfacePropertySpec{DataType: "integer"}
			return s, ts
		}, "interfaces[1].properties.label", "is integer here and string in Named, which Billable extends"},
		{"inherited data type conflicts in an interface met first as a parent", func(s ifaces, ts types) (ifaces, types) {
			// Receipt, first in the config, extends Billable, whose own
			// conflict with Named must name Billable's field.
			s[1].Properties["label"] = InterfacePropertySpec{DataType: "integer"}
			return append(ifaces{{APIName: "Receipt", Extends: []string{"Billable"}}}, s...), ts
		}, "interfaces[2].properties.label", "is integer here and string in Named, which Billable extends"},
		{"link target names no object type", func(s ifaces, ts types) (ifaces, types) {
			s[1].Links[0].Target = InterfaceLinkTarget{ObjectType: "Costumer"}
			return s, ts
		}, "interfaces[1].links[0].target.objectType", `"Costumer" is not an object type (did you mean "Customer"?)`},
		{"link target names no interface", func(s ifaces, ts types) (ifaces, types) {
			s[2].Links[0].Target = InterfaceLinkTarget{Interface: "Billabel"}
			return s, ts
		}, "interfaces[2].links[0].target.interface", `"Billabel" is not an interface (did you mean "Billable"?)`},
		{"link target both kinds", func(s ifaces, ts types) (ifaces, types) {
			s[2].Links[0].Target = InterfaceLinkTarget{Interface: "Billable", ObjectType: "Order"}
			return s, ts
		}, "interfaces[2].links[0].target", "needs exactly one of objectType and interface"},
		{"link cardinality neither ONE nor MANY", func(s ifaces, ts types) (ifaces, types) {
			s[1].Links[0].Cardinality = "one"
			return s, ts
		}, "interfaces[1].links[0].cardinality", `"one" must be ONE or MANY`},
		{"direct and inherited implementations disagree", func(s ifaces, ts types) (ifaces, types) {
			ts[1].Implements["Named"] = ImplementationSpec{Properties: map[string]string{"label": "id"}}
			return s, ts
		}, "objectTypes[1].implements.Billable.properties.label", `maps label to "status", but Order's implementation of Named maps it to "id"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, errs := ResolveInterfaces(tt.edit(interfaceTestConfig()))
			if set != nil || len(errs) == 0 {
				t.Fatalf("resolved; want an error at %s", tt.field)
			}
			var found []string
			for _, err := range errs {
				var fe *FieldError
				if !errors.As(err, &fe) {
					t.Fatalf("error %v is not a *FieldError", err)
				}
				if fe.Field == tt.field && strings.Contains(fe.Msg, tt.msg) {
					return
				}
				found = append(found, err.Error())
			}
			t.Fatalf("errors:\n  %s\nwant one at %s with %q", strings.Join(found, "\n  "), tt.field, tt.msg)
		})
	}
}

func TestResolveInterfaces_resolved(t *testing.T) {
	set, errs := ResolveInterfaces(interfaceTestConfig())
	if len(errs) > 0 {
		t.Fatal(errors.Join(errs...))
	}
	if got := set.Names(); !slices.Equal(got, []string{"Named", "Billable", "Party"}) {
		t.Errorf("Names() = %v, want config order", got)
	}
	tests := []struct {
		iface         string
		allProperties []string
		allExtends    []string
		allLinks      []string
		implementedBy []string
	}{
		{"Named", []string{"label"}, nil, nil, []string{"Customer", "Order", "Tag"}},
		{"Billable", []string{"amount", "label"}, []string{"Named"}, []string{"payer"}, []string{"Order"}},
		{"Party", []string{"city", "label"}, nil, []string{"bills"}, []string{"Customer"}},
	}
	for _, tt := range tests {
		t.Run(tt.iface, func(t *testing.T) {
			i, ok := set.Interface(tt.iface)
			if !ok {
				t.Fatalf("no interface %s", tt.iface)
			}
			if got := slices.Sorted(maps.Keys(i.AllProperties)); !slices.Equal(got, tt.allProperties) {
				t.Errorf("AllProperties %v, want %v", got, tt.allProperties)
			}
			if !slices.Equal(i.AllExtends, tt.allExtends) {
				t.Errorf("AllExtends %v, want %v", i.AllExtends, tt.allExtends)
			}
			var links []string
			for _, l := range i.AllLinks {
				links = append(links, l.APIName)
			}
			if !slices.Equal(links, tt.allLinks) {
				t.Errorf("AllLinks %v, want %v", links, tt.allLinks)
			}
			if !slices.Equal(i.ImplementedBy, tt.implementedBy) {
				t.Errorf("ImplementedBy %v, want %v", i.ImplementedBy, tt.implementedBy)
			}
		})
	}
	t.Run("inherited implementation", func(t *testing.T) {
		impl, ok := set.Implementation("Order", "Named")
		if !ok {
			t.Fatal("Order does not implement Named through Billable")
		}
		if impl.Direct || !maps.Equal(impl.Properties, map[string]string{"label": "status"}) || len(impl.Links) != 0 {
			t.Errorf("Order's Named: %+v, want label -> status, no links, not direct", impl)
		}
		direct, _ := set.Implementation("Order", "Billable")
		if !direct.Direct || direct.Links["payer"] != "customer" {
			t.Errorf("Order's Billable: %+v, want direct with payer -> customer", direct)
		}
		if set.Implements("Tag", "Billable") || !set.Implements("Customer", "Party") {
			t.Error("Implements: Tag implements Billable or Customer does not implement Party")
		}
		if got := slices.Sorted(maps.Keys(set.Implementations("Order"))); !slices.Equal(got, []string{"Billable", "Named"}) {
			t.Errorf("Implementations(Order) = %v, want Billable and Named", got)
		}
	})
}

func TestInterfaceSet_CheckImplementation(t *testing.T) {
	set, errs := ResolveInterfaces(interfaceTestConfig())
	if len(errs) > 0 {
		t.Fatal(errors.Join(errs...))
	}
	order := func(amount, status Kind) *Type {
		return NewType(Type{APIName: "Order", PrimaryKey: []string{"id"}, Properties: []Property{
			{APIName: "id", Type: DataType{Kind: KindLong}},
			{APIName: "amount", Type: DataType{Kind: amount}},
			{APIName: "status", Type: DataType{Kind: status}},
		}})
	}
	tests := []struct {
		name  string
		typ   *Type
		iface string
		want  string // "" for none; else the error, field included
	}{
		{"types fit", order(KindDouble, KindString), "Billable", ""},
		{"a uuid is a string", order(KindDouble, KindUUID), "Named", ""},
		{"own property of another type", order(KindLong, KindString), "Billable",
			"Order.implements.Billable.properties.amount: property amount of Order is long, interface property Billable.amount is double"},
		{"the broken property is not one of this interface's", order(KindLong, KindString), "Named", ""},
		{"inherited property of another type", order(KindDouble, KindBoolean), "Named",
			"Order.implements.Named.properties.label: property status of Order is boolean, interface property Named.label is string"},
		{"not implemented", order(KindLong, KindLong), "Party", ""},
		{"mapped property missing", NewType(Type{APIName: "Tag", Properties: []Property{{APIName: "code", Type: DataType{Kind: KindString}}}}), "Named",
			`Tag.implements.Named.properties.label: Tag has no property "label"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := set.CheckImplementation(tt.typ, tt.iface)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.want != "" && (err == nil || err.Error() != tt.want):
				t.Fatalf("error %v, want %s", err, tt.want)
			}
		})
	}
	if err := set.CheckType(order(KindLong, KindString)); err == nil || !strings.Contains(err.Error(), "Billable.properties.amount") {
		t.Errorf("CheckType: %v, want the error of Billable.amount", err)
	}
}
