package objects

import (
	"errors"
	"strings"
	"testing"
)

func linkTestSpecs(links ...LinkSpec) []TypeSpec {
	return []TypeSpec{
		{APIName: "Customer", Table: "c.s.customers", Properties: map[string]PropertySpec{"id": {Column: "id"}, "name": {Column: "name"}}},
		{APIName: "Order", Table: "c.s.orders", Properties: map[string]PropertySpec{"id": {Column: "id"}, "customerId": {Column: "customer_id"}}, Links: links},
		{APIName: "Line", Table: "c.s.lines", PrimaryKey: []string{"order_id", "no"}},
	}
}

func TestValidateLinks(t *testing.T) {
	through := &ThroughSpec{Table: "c.s.order_tags", SourceKey: "order_id", TargetKey: "customer_id"}
	tests := []struct {
		name  string
		links []LinkSpec
		want  string // "" for none; else a substring of the error, field included
	}{
		{"a foreign key and its reverse", []LinkSpec{{APIName: "customer", Target: "Customer", ForeignKey: "customerId", ReverseAPIName: "orders"}}, ""},
		{"through a join table", []LinkSpec{{APIName: "buyers", Target: "Customer", Through: through, ReverseAPIName: "purchases"}}, ""},
		{"unknown target", []LinkSpec{{APIName: "customer", Target: "Custmer", ForeignKey: "customerId"}}, `objectTypes[1].links[0].target: "Custmer" is not an object type`},
		{"no target", []LinkSpec{{APIName: "customer", ForeignKey: "customerId"}}, "objectTypes[1].links[0].target: is required"},
		{"no key", []LinkSpec{{APIName: "customer", Target: "Customer"}}, "objectTypes[1].links[0].foreignKey: is required"},
		{"both keys", []LinkSpec{{APIName: "customer", Target: "Customer", ForeignKey: "customerId", Through: through}}, "objectTypes[1].links[0]: set either foreignKey or through"},
		{"foreign key not a property", []LinkSpec{{APIName: "customer", Target: "Customer", ForeignKey: "customer_id"}}, `objectTypes[1].links[0].foreignKey: "customer_id" is not a property of Order`},
		{"composite target key", []LinkSpec{{APIName: "line", Target: "Line", ForeignKey: "customerId"}}, "objectTypes[1].links[0].foreignKey: Line has a composite primary key"},
		{"bad name", []LinkSpec{{APIName: "the customer", Target: "Customer", ForeignKey: "customerId"}}, "objectTypes[1].links[0].apiName"},
		{"name of a property", []LinkSpec{{APIName: "customerId", Target: "Customer", ForeignKey: "customerId"}}, `objectTypes[1].links[0].apiName: link "customerId" collides with property customerId of Order`},
		{"reverse name of a target property", []LinkSpec{{APIName: "customer", Target: "Customer", ForeignKey: "customerId", ReverseAPIName: "name"}},
			`objectTypes[1].links[0].reverseApiName: reverse link "name" collides with property name of Customer`},
		{"two links of one name", []LinkSpec{{APIName: "customer", Target: "Customer", ForeignKey: "customerId"}, {APIName: "customer", Target: "Customer", Through: through}},
			`objectTypes[1].links[1].apiName: link "customer" of Order is already the name of the link objectTypes[1].links[0].apiName`},
		{"two reverse sides of one name", []LinkSpec{{APIName: "a", Target: "Customer", ForeignKey: "customerId", ReverseAPIName: "orders"}, {APIName: "b", Target: "Customer", Through: through, ReverseAPIName: "orders"}},
			`objectTypes[1].links[1].reverseApiName: reverse link "orders" of Customer is already the name`},
		{"join table without keys", []LinkSpec{{APIName: "buyers", Target: "Customer", Through: &ThroughSpec{Table: "c.s.t"}}}, "objectTypes[1].links[0].through.sourceKey: is required"},
		{"join table keys alike", []LinkSpec{{APIName: "buyers", Target: "Customer", Through: &ThroughSpec{Table: "c.s.t", SourceKey: "k", TargetKey: "k"}}}, "through.targetKey: must differ"},
		{"join table not a reference", []LinkSpec{{APIName: "buyers", Target: "Customer", Through: &ThroughSpec{Table: "t", SourceKey: "a", TargetKey: "b"}}}, `through.table: "t" must be`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := errors.Join(ValidateLinks(linkTestSpecs(tt.links...))...)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want one with %q", err, tt.want)
			}
		})
	}
}

func TestLinks(t *testing.T) {
	specs := linkTestSpecs(
		LinkSpec{APIName: "customer", Target: "Customer", ForeignKey: "customerId", ReverseAPIName: "orders"},
		LinkSpec{APIName: "buyers", Target: "Customer", Through: &ThroughSpec{Table: "c.s.ot", SourceKey: "o", TargetKey: "c"}})
	got := Links(specs)
	want := map[string][]LinkSide{
		"Order": {
			{APIName: "customer", DisplayName: "customer", Source: "Order", Target: "Customer", SourceProperty: "customerId", LinkType: "Order.customer", Field: "objectTypes[1].links[0]"},
			{APIName: "buyers", DisplayName: "buyers", Source: "Order", Target: "Customer", Many: true, Table: "Order.buyers", SourceProperty: "o", TargetProperty: "c", LinkType: "Order.buyers", Field: "objectTypes[1].links[1]"},
		},
		"Customer": {
			{APIName: "orders", DisplayName: "orders", Source: "Customer", Target: "Order", Many: true, TargetProperty: "customerId", LinkType: "Order.customer", Field: "objectTypes[1].links[0]"},
		},
	}
	if len(got) != len(want) {
		t.Fatalf("sides of %d types, want %d: %+v", len(got), len(want), got)
	}
	for typ, sides := range want {
		if len(got[typ]) != len(sides) {
			t.Fatalf("%s: %+v, want %+v", typ, got[typ], sides)
		}
		for i := range sides {
			if got[typ][i] != sides[i] {
				t.Fatalf("%s side %d: %+v, want %+v", typ, i, got[typ][i], sides[i])
			}
		}
	}
	if fk := got["Order"][0].ForeignKeyProperty(); fk != "customerId" {
		t.Fatalf("foreign key of Order.customer: %q", fk)
	}
	if fk := got["Customer"][0].ForeignKeyProperty(); fk != "" {
		t.Fatalf("the MANY side has foreign key %q", fk)
	}
	ts := specs[1].Links[1].LinkTableSpec("Order")
	if ts.APIName != "Order.buyers" || ts.Table != "c.s.ot" || len(ts.PrimaryKey) != 2 || len(ts.Properties) != 2 {
		t.Fatalf("link table spec %+v", ts)
	}
}

func TestCheckLink(t *testing.T) {
	long, str, lst := DataType{Kind: KindLong}, DataType{Kind: KindString}, DataType{Kind: KindList}
	typ := func(name string, pk []string, props ...Property) *Type {
		return NewType(Type{APIName: name, Table: "c.s." + name, PrimaryKey: pk, Properties: props})
	}
	customer := typ("Customer", []string{"id"}, Property{APIName: "id", Type: long})
	order := func(fk DataType) *Type {
		return typ("Order", []string{"id"}, Property{APIName: "id", Type: long}, Property{APIName: "customerId", Type: fk})
	}
	one := &LinkSide{APIName: "customer", Source: "Order", Target: "Customer", SourceProperty: "customerId", Field: "objectTypes[1].links[0]"}
	many := &LinkSide{APIName: "orders", Source: "Customer", Target: "Order", Many: true, TargetProperty: "customerId", Field: "objectTypes[1].links[0]"}
	tests := []struct {
		name          string
		l             *LinkSide
		src, tgt, tbl *Type
		want          string
	}{
		{"one", one, order(long), customer, nil, ""},
		{"integer and long match", one, order(DataType{Kind: KindInteger}), customer, nil, ""},
		{"many", many, customer, order(long), nil, ""},
		{"key types differ", one, order(str), customer, nil, "link customer of Order (objectTypes[1].links[0]): Order.customerId is string, but Customer.id is long"},
		{"array key", one, order(lst), customer, nil, "foreignKey customerId of Order is an array"},
		{"reverse key types differ", many, customer, order(str), nil, "Order.customerId is string, but Customer.id is long"},
		{"name of a property", &LinkSide{APIName: "customerId", Source: "Order", Target: "Customer", SourceProperty: "customerId"}, order(long), customer, nil, "collides with property customerId"},
		{"through", &LinkSide{APIName: "buyers", Source: "Order", Target: "Customer", Many: true, Table: "Order.buyers", SourceProperty: "o", TargetProperty: "c"},
			order(long), customer, typ("Order.buyers", []string{"o", "c"}, Property{APIName: "o", Type: long}, Property{APIName: "c", Type: str}), "Customer.id is long, but c.s.Order.buyers.c is string"},
		{"through without its column", &LinkSide{APIName: "buyers", Source: "Order", Target: "Customer", Many: true, Table: "Order.buyers", SourceProperty: "o", TargetProperty: "c"},
			order(long), customer, typ("Order.buyers", []string{"o"}, Property{APIName: "o", Type: long}), "join column c is not a property of Order.buyers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckLink(tt.l, tt.src, tt.tgt, tt.tbl)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want one with %q", err, tt.want)
			}
		})
	}
}
