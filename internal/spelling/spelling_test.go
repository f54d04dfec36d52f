package spelling

import (
	"slices"
	"testing"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"city", "city", 0},
		{"citty", "city", 1},
		{"cty", "city", 1},
		{"citx", "city", 1},
		{"titleProprety", "titleProperty", 1},
		{"titleProprty", "titleProperty", 1},
		{"titelPropety", "titleProperty", 2},
		{"ab", "ba", 1},
		{"kitten", "sitting", 3},
		{"naïve", "naive", 1},
	}
	for _, tt := range tests {
		t.Run(tt.a+"/"+tt.b, func(t *testing.T) {
			if got := Distance(tt.a, tt.b); got != tt.want {
				t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
			if got := Distance(tt.b, tt.a); got != tt.want {
				t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", tt.b, tt.a, got, tt.want)
			}
		})
	}
}

func TestClosest(t *testing.T) {
	names := []string{"id", "name", "city", "country", "cityCode"}
	tests := []struct {
		name string
		n    int
		want []string
	}{
		{"citty", 2, []string{"city", "id"}},
		{"CITY", 1, []string{"city"}},
		{"x", 0, []string{}},
		{"nam", 10, []string{"name", "id", "city", "country", "cityCode"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Closest(tt.name, names, tt.n); !slices.Equal(got, tt.want) {
				t.Errorf("Closest(%q, %d) = %q, want %q", tt.name, tt.n, got, tt.want)
			}
		})
	}
}

func TestMeant(t *testing.T) {
	keys := []string{"apiName", "table", "primaryKey", "titleProperty", "properties", "pollInterval"}
	tests := []struct {
		name, want string
	}{
		{"titleProprety", "titleProperty"},
		{"titelProperty", "titleProperty"},
		{"TitleProperty", "titleProperty"},
		{"pollIntervall", "pollInterval"},
		{"tabel", "table"},
		{"nope", ""},
		{"x", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Meant(tt.name, keys); got != tt.want {
				t.Errorf("Meant(%q) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
	if got := Meant("a", nil); got != "" {
		t.Errorf("Meant without candidates = %q", got)
	}
}

// TestMeant_columns: the column names of a table mapping, as indexer
// check and build suggest them.
func TestMeant_columns(t *testing.T) {
	columns := []string{"id", "name", "customer_id", "signup_date"}
	tests := []struct {
		name, want string
	}{
		{"nmae", "name"},               // adjacent letters swapped: one edit
		{"naem", "name"},               // one swap
		{"nam", "name"},                // one letter short
		{"customerid", "customer_id"},  // one letter short
		{"custmer_ids", "customer_id"}, // two edits
		{"signupdate", "signup_date"},  // one letter short
		{"city", ""},                   // nothing near
		{"xy", ""},                     // two edits from id: too many for two letters
		{"customer_identity", ""},      // too far
		{"name", "name"},               // exact
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Meant(tt.name, columns); got != tt.want {
				t.Errorf("Meant(%q) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}
