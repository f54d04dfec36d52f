package apidemo

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/ontoindex/ontoindex/internal/testkit/icebergtest"
	"github.com/ontoindex/ontoindex/objects"
)

// Employees is the number of employee rows.
const Employees = 48

var (
	firstNames = []string{"Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Margaret", "Dennis", "Radia", "Linus"}
	lastNames  = []string{"Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson", "Hamilton", "Ritchie", "Perlman", "Torvalds", "O'Neil"}
	titles     = []string{"Senior Pilot", "Junior Pilot", "Flight Engineer", "Ground Crew Lead", "Air Traffic Controller", "Chief Pilot"}
	depts      = []string{"Flight Ops", "Maintenance", "Sales", "Research"}
	bios       = []string{
		"Flies the Boeing 737-800 across the North Atlantic.",
		"Keeps the hangar doors open; loves night-shift work.",
		"Sells seats, miles and upgrades to frequent flyers.",
		"Researches fuel efficiency of turbofan engines.",
		"Former air-force pilot, now training new pilots.",
		"Writes the maintenance manuals for the A320 fleet.",
		"Schedules crews, aircraft and airport slots.",
	}
	tagSets = [][]string{{"remote"}, {"senior", "mentor"}, {}, {"night-shift", "remote"}, {"mentor"}, nil}
	// BigBase is beyond 2^53: longs keep their exact digits on the wire.
	BigBase int64 = 9007199254740993
)

// EmployeeRows returns the employee rows, keyed by column name, as they
// are written to the table (dates as YYYY-MM-DD, timestamps as RFC 3339,
// decimals as strings).
func EmployeeRows() []icebergtest.Row {
	start := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)
	upd := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := make([]icebergtest.Row, 0, Employees)
	for i := 1; i <= Employees; i++ {
		r := icebergtest.Row{
			"id":      int64(i * 10),
			"name":    firstNames[i%len(firstNames)] + " " + lastNames[(i*7)%len(lastNames)],
			"title":   titles[i%len(titles)],
			"dept":    depts[i%len(depts)],
			"age":     21 + (i*13)%40,
			"salary":  fmt.Sprintf("%d.%02d", 40000+i*1234, i%100),
			"rating":  float64(i%9)*0.5 + 0.25,
			"hired":   start.AddDate(0, 0, i*37).Format(time.DateOnly),
			"updated": upd.Add(time.Duration(i)*3*time.Hour + time.Duration(i)*time.Minute).Format(time.RFC3339),
			"active":  i%3 != 0,
			"bio":     bios[i%len(bios)],
			"big":     BigBase + int64(i),
			"secret":  fmt.Sprintf("s-%d", i),
		}
		if ts := tagSets[i%len(tagSets)]; ts != nil {
			r["tags"] = ts
		}
		if i%11 == 0 {
			r["age"] = nil
		}
		if i%13 == 0 {
			r["rating"] = nil
		}
		if i%5 == 0 {
			r["bio"] = nil
		}
		rows = append(rows, r)
	}
	return rows
}

// Bio is the k-th of the bios employees have (employee i has bio i%7,
// or none when i%5 == 0).
func Bio(k int) string { return bios[k] }

// Projects of the assignments; they hold the characters composite keys
// escape.
var Projects = []string{"Apollo", "R&D, phase 1", "100% uptime", "Gemini"}

// AssignmentRows returns the assignment rows: employees 10..120 on some
// projects.
func AssignmentRows() []icebergtest.Row {
	var rows []icebergtest.Row
	for i := 1; i <= 12; i++ {
		for j, p := range Projects {
			if (i+j)%3 == 0 {
				continue
			}
			rows = append(rows, icebergtest.Row{"emp_id": int64(i * 10), "project": p, "hours": (i*j)%40 + 1})
		}
	}
	return rows
}

var (
	employeeSchema = iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "title", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 4, Name: "dept", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 5, Name: "age", Type: iceberg.PrimitiveTypes.Int32},
		iceberg.NestedField{ID: 6, Name: "salary", Type: iceberg.DecimalTypeOf(10, 2)},
		iceberg.NestedField{ID: 7, Name: "rating", Type: iceberg.PrimitiveTypes.Float64},
		iceberg.NestedField{ID: 8, Name: "hired", Type: iceberg.PrimitiveTypes.Date},
		iceberg.NestedField{ID: 9, Name: "updated", Type: iceberg.PrimitiveTypes.TimestampTz},
		iceberg.NestedField{ID: 10, Name: "active", Type: iceberg.PrimitiveTypes.Bool},
		iceberg.NestedField{ID: 11, Name: "tags", Type: &iceberg.ListType{ElementID: 100, Element: iceberg.PrimitiveTypes.String}},
		iceberg.NestedField{ID: 12, Name: "bio", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 13, Name: "big", Type: iceberg.PrimitiveTypes.Int64},
		iceberg.NestedField{ID: 14, Name: "secret", Type: iceberg.PrimitiveTypes.String},
	)
	assignmentSchema = iceberg.NewSchemaWithIdentifiers(1, []int{1, 2},
		iceberg.NestedField{ID: 1, Name: "emp_id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "project", Type: iceberg.PrimitiveTypes.String, Required: true},
		iceberg.NestedField{ID: 3, Name: "hours", Type: iceberg.PrimitiveTypes.Int32},
	)
	ghostSchema = iceberg.NewSchemaWithIdentifiers(1, []int{1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
	)
)

// Create writes the demo tables into w: employees in three commits (so the
// table has several data files), assignments in one.
func Create(ctx context.Context, w *icebergtest.Warehouse) error {
	rows := EmployeeRows()
	if _, err := w.WriteTable(ctx, "demo.employees", employeeSchema, nil, rows[:16], rows[16:32], rows[32:]); err != nil {
		return err
	}
	if _, err := w.WriteTable(ctx, "demo.assignments", assignmentSchema, nil, AssignmentRows()); err != nil {
		return err
	}
	_, err := w.CreateTable(ctx, "demo.ghost", ghostSchema, nil)
	return err
}

// Specs are the object types of the demo, over a catalog named catalog.
func Specs(catalog string) []objects.TypeSpec {
	prop := func(col string, role objects.SearchRole) objects.PropertySpec {
		return objects.PropertySpec{Column: col, Search: role}
	}
	return []objects.TypeSpec{
		{
			APIName: "Employee", DisplayName: "Employee", PluralDisplayName: "Employees",
			Description: "People of the demo airline", Table: catalog + ".demo.employees", TitleProperty: "name",
			Properties: map[string]objects.PropertySpec{
				"id": prop("id", ""), "name": prop("name", ""), "title": prop("title", ""),
				"dept": prop("dept", objects.SearchKeyword), "age": prop("age", ""), "salary": prop("salary", ""),
				"rating": prop("rating", ""), "hired": prop("hired", ""), "updated": prop("updated", ""),
				"active": prop("active", ""), "tags": prop("tags", objects.SearchKeyword), "bio": prop("bio", ""),
				"big": prop("big", ""), "secret": prop("secret", objects.SearchNone),
			},
		},
		{APIName: "Assignment", Table: catalog + ".demo.assignments", TitleProperty: "project"},
		{APIName: "Ghost", Table: catalog + ".demo.ghost"},
	}
}

// BuiltTypes are the types a demo build builds (Ghost stays unbuilt).
func BuiltTypes() []string { return []string{"Employee", "Assignment"} }
