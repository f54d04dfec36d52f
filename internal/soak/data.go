package soak

import (
	"fmt"
	"strconv"

	"github.com/apache/iceberg-go"
)

// The two tables of the campaign. Every row carries the sequence number of
// the writer's commit that last wrote it (its stamp), and every other
// value is a function of the key and the stamp (itemValues, groupValues):
// a served object says by itself which version of its row it is, and
// whether any of its properties belongs to another version.
const (
	namespace   = "soak"
	itemsTable  = "items"
	groupsTable = "groups"
	itemType    = "Item"
	groupType   = "Group"
	itemsLink   = "items" // Group -> Item, the reverse side of Item.group
	groupLink   = "group" // Item -> Group
	catalogName = "warehouse"
	categories  = 8
)

// itemsSchema: id long (the key), grp long (a Group key), stamp long, name
// string (text), cat string, val double; added columns x1, x2, ... (long)
// come later (schema additions).
func itemsSchema() *iceberg.Schema {
	return iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "grp", Type: iceberg.PrimitiveTypes.Int64},
		iceberg.NestedField{ID: 3, Name: "stamp", Type: iceberg.PrimitiveTypes.Int64},
		iceberg.NestedField{ID: 4, Name: "name", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 5, Name: "cat", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 6, Name: "val", Type: iceberg.PrimitiveTypes.Float64},
	)
}

// groupsSchema: gid long (the key), title string, stamp long.
func groupsSchema() *iceberg.Schema {
	return iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "gid", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "title", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "stamp", Type: iceberg.PrimitiveTypes.Int64},
	)
}

var words = []string{"amber", "birch", "cedar", "delta", "ember", "fjord", "gale", "heron",
	"iris", "juniper", "kelp", "lotus", "maple", "nectar", "onyx", "pine"}

// mix is splitmix64's finalizer: the values of a row from its key and stamp.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func rowHash(seed uint64, id, stamp int64) uint64 {
	return mix(seed ^ mix(uint64(id)*0x9e3779b97f4a7c15^uint64(stamp)))
}

// item is one row of the items table.
type item struct {
	ID, Grp, Stamp int64
	Cat            string
	Val            float64
	Words          [2]string // of the name (name)
	// X holds the added columns' values, nil where the row is null (it was
	// written before the column existed).
	X []*int64
}

// itemValues is the row of item id as the commit stamp writes it, given
// the columns added so far (the sequence number of each addition).
func itemValues(seed uint64, groups int, id, stamp int64, added []int64) item {
	h := rowHash(seed, id, stamp)
	it := item{ID: id, Stamp: stamp,
		Grp:   1 + int64(h%uint64(groups)),
		Cat:   "c" + strconv.Itoa(int((h>>8)%categories)),
		Val:   float64((h>>16)%1_000_000) / 100,
		Words: [2]string{words[(h>>24)%uint64(len(words))], words[(h>>32)%uint64(len(words))]},
	}
	for i, at := range added {
		if stamp > at {
			v := int64(((h >> 40) ^ uint64(i+1)) % 1000)
			it.X = append(it.X, &v)
		} else {
			it.X = append(it.X, nil)
		}
	}
	return it
}

// name is the row's name: "item <id> <word> <word>" (built only when
// needed: the checks compare the words).
func (it item) name() string { return fmt.Sprintf("item %d %s %s", it.ID, it.Words[0], it.Words[1]) }

// addedColumn names the i-th added column (0-based).
func addedColumn(i int) string { return "x" + strconv.Itoa(i+1) }

// canonical renders the item as the served object's properties (apiName
// -> value in canonical form, null properties absent; see canonValue).
func (it item) canonical() map[string]string {
	m := map[string]string{
		"id": canonInt(it.ID), "grp": canonInt(it.Grp), "stamp": canonInt(it.Stamp),
		"name": it.name(), "cat": it.Cat, "val": canonFloat(it.Val),
	}
	for i, x := range it.X {
		if x != nil {
			m[addedColumn(i)] = canonInt(*x)
		}
	}
	return m
}

// group is one row of the groups table.
type group struct {
	GID, Stamp int64
	Title      string
}

func groupValues(seed uint64, gid, stamp int64) group {
	h := rowHash(seed^0x5ca1ab1e, gid, stamp)
	return group{GID: gid, Stamp: stamp, Title: fmt.Sprintf("group %d %s", gid, words[h%uint64(len(words))])}
}

func (g group) canonical() map[string]string {
	return map[string]string{"gid": canonInt(g.GID), "title": g.Title, "stamp": canonInt(g.Stamp)}
}

func canonInt(v int64) string     { return strconv.FormatInt(v, 10) }
func canonFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
