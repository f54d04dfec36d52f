package wire

import (
	"fmt"
	"strings"

	"github.com/ontoindex/ontoindex/internal/spelling"
	"github.com/ontoindex/ontoindex/objects"
)

// Errors that name the fix as well as the problem: the property a
// misspelt name most likely meant, the values a field takes.

// Up to listAllProperties properties go to a PropertiesNotFound error as
// validProperties; a type with more gets the closestProperties nearest to
// the first unknown name, so the error stays small.
const (
	listAllProperties = 20
	closestProperties = 5
)

// PropertiesNotFound is the 404 for names that are not properties of t.
// Its reason says which property each name most likely meant, and its
// parameters list the type's properties (or the nearest few).
func PropertiesNotFound(t *objects.Type, names []string) *Error {
	valid := make([]string, 0, len(t.Properties))
	name := t.APIName
	for _, p := range t.Properties {
		if strings.HasPrefix(p.APIName, objects.HiddenPrefix) {
			name = t.DisplayName // a view through an interface (objects.ViewAs)
			continue
		}
		valid = append(valid, p.APIName)
	}
	params := map[string]any{"objectType": t.APIName, "properties": names}
	listed := "validProperties lists its properties"
	if len(valid) <= listAllProperties {
		params["validProperties"] = valid
	} else {
		params["closestProperties"] = spelling.Closest(names[0], valid, closestProperties)
		listed = "closestProperties lists the nearest of its properties"
	}
	var reason strings.Builder
	if len(names) == 1 {
		fmt.Fprintf(&reason, "%s has no property %s", name, names[0])
	} else {
		fmt.Fprintf(&reason, "%s has no properties %s", name, strings.Join(names, ", "))
	}
	var meant []string
	for _, n := range names {
		if m := spelling.Meant(n, valid); m != "" {
			if len(names) == 1 {
				meant = append(meant, m)
			} else {
				meant = append(meant, m+" for "+n)
			}
		}
	}
	if len(meant) > 0 {
		fmt.Fprintf(&reason, "; did you mean %s?", strings.Join(meant, ", "))
	} else {
		reason.WriteString("; " + listed)
	}
	params["reason"] = reason.String()
	return Err(NamePropertiesNotFound, params)
}

// InterfaceTypeNotFound is the 404 for a name that is not an interface
// the principal may see; known are those it may see, and the reason
// suggests the one most likely meant. rid is the rid the name would have.
func InterfaceTypeNotFound(name, rid string, known []string) *Error {
	reason := "no interface type " + name
	if m := spelling.Meant(name, known); m != "" {
		reason += "; did you mean " + m + "?"
	} else {
		reason += "; GET /api/v2/ontologies/{ontology}/interfaceTypes lists them"
	}
	return Err(NameInterfaceTypeNotFound, map[string]any{"apiName": name, "rid": rid, "reason": reason})
}

// InvalidSortOrder is the 400 for a sort direction other than asc and
// desc; field names what the direction was given for.
func InvalidSortOrder(field, direction string) *Error {
	return Err(NameInvalidSortOrder, map[string]any{"invalidSortOrder": direction, "field": field,
		"reason": fmt.Sprintf("the direction of %s is %q; it must be \"asc\" or \"desc\"", field, direction)})
}
