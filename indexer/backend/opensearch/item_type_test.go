package opensearch

import "github.com/ontoindex/ontoindex/objects"

// The differential test's objects and queries: an object type with a
// property of each kind the reads translate differently, and random
// filters and sorts over it, after indexer/index's own generators. Values
// stay where the two backends are documented to agree (doc.go):
// timestamps in whole milliseconds, decimals a double holds exactly
// enough, no infinities.

func itemType() *objects.Type {
	p := func(name string, t objects.DataType, role objects.SearchRole) objects.Property {
		return objects.Property{APIName: name, Column: name, Type: t, Search: role}
	}
	k := func(kind objects.Kind) objects.DataType { return objects.DataType{Kind: kind} }
	str, long := k(objects.KindString), k(objects.KindLong)
	return objects.NewType(objects.Type{
		APIName: "Item", PrimaryKey: []string{"id"}, TitleProperty: "id",
		Properties: []objects.Property{
			p("id", long, objects.SearchNumeric),
			p("name", str, objects.SearchText),
			p("city", str, objects.SearchKeyword),
			p("code", str, objects.SearchKeyword),
			p("balance", k(objects.KindDouble), objects.SearchNumeric),
			p("visits", long, objects.SearchNumeric),
			p("amount", objects.DataType{Kind: objects.KindDecimal, Precision: 12, Scale: 2}, objects.SearchNumeric),
			p("day", k(objects.KindDate), objects.SearchDate),
			p("at", k(objects.KindTimestampTZ), objects.SearchDate),
			p("active", k(objects.KindBoolean), objects.SearchBoolean),
			p("tags", objects.DataType{Kind: objects.KindList, Elem: &str}, objects.SearchKeyword),
			p("notes", objects.DataType{Kind: objects.KindList, Elem: &str}, objects.SearchText),
			p("scores", objects.DataType{Kind: objects.KindList, Elem: &long}, objects.SearchNumeric),
			p("blob", str, objects.SearchNone),
			{APIName: "crew", Column: "crew", Type: k(objects.KindStruct), Search: objects.SearchNone},
			{APIName: "crew.captain", Column: "crew", Type: str, Search: objects.SearchKeyword, Struct: "crew", Field: "captain"},
			{APIName: "crew.size", Column: "crew", Type: long, Search: objects.SearchNumeric, Struct: "crew", Field: "size"},
			p("rank", long, objects.SearchKeyword),
			p("ref", k(objects.KindUUID), objects.SearchKeyword),
		},
	})
}
