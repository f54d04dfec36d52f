package objects

import "testing"

func TestClosest(t *testing.T) {
	columns := []string{"id", "name", "customer_id", "signup_date"}
	tests := []struct {
		name string
		want string
	}{
		{"nmae", "name"},               // adjacent letters swapped: one edit
		{"naem", "name"},               // one swap
		{"nam", "name"},                // one letter short
		{"customerid", "customer_id"},  // one letter short
		{"custmer_ids", "customer_id"}, // two edits
		{"signupdate", "signup_date"},  // one letter short
		{"city", ""},                   // nothing near
		{"xy", ""},                     // two edits from id, but as many as its letters
		{"customer_identity", ""},      // too far
		{"name", "name"},               // exact
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := closest(tt.name, columns); got != tt.want {
				t.Errorf("closest(%q) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"name", "name", 0},
		{"nmae", "name", 1},
		{"kitten", "sitting", 3},
		{"ca", "abc", 3}, // optimal string alignment: no edit of a swapped pair
		{"größe", "grösse", 2},
	}
	for _, tt := range tests {
		t.Run(tt.a+"/"+tt.b, func(t *testing.T) {
			if got := editDistance(tt.a, tt.b); got != tt.want {
				t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
			if got := editDistance(tt.b, tt.a); got != tt.want {
				t.Errorf("editDistance(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
			}
		})
	}
}
