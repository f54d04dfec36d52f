package objects

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ontoindex/ontoindex/internal/spelling"
)

// TypeSpec is an object type as the config file declares it, before it is
// checked against the columns of its table.
type TypeSpec struct {
	APIName            string                  `yaml:"apiName" json:"apiName"`
	DisplayName        string                  `yaml:"displayName" json:"displayName,omitempty"`
	PluralDisplayName  string                  `yaml:"pluralDisplayName" json:"pluralDisplayName,omitempty"`
	Description        string                  `yaml:"description" json:"description,omitempty"`
	Table              string                  `yaml:"table" json:"table"`
	PrimaryKey         []string                `yaml:"primaryKey" json:"primaryKey,omitempty"`
	TitleProperty      string                  `yaml:"titleProperty" json:"titleProperty,omitempty"`
	Properties         map[string]PropertySpec `yaml:"properties" json:"properties,omitempty"`
	SemanticVersion    int                     `yaml:"semanticVersion" json:"semanticVersion"`
	RequireIncremental bool                    `yaml:"requireIncremental" json:"requireIncremental,omitempty"`
	OnInvalidRow       InvalidRowPolicy        `yaml:"onInvalidRow" json:"onInvalidRow,omitempty"`
	// ReadMode says which snapshot ranges an incremental build may read
	// ("": changelog).
	ReadMode ReadMode `yaml:"readMode" json:"readMode,omitempty"`
	// MergeOnRead says what a build does with snapshots that carry
	// merge-on-read delete files ("": refuse).
	MergeOnRead MergeOnReadPolicy `yaml:"mergeOnRead" json:"mergeOnRead,omitempty"`
	// PollInterval is how often the daemon looks for new snapshots
	// (0: the daemon's default).
	PollInterval time.Duration `yaml:"pollInterval" json:"pollInterval,omitempty"`
	// Backend names the search backend (a key of the config's backends)
	// the type is indexed into; empty: the embedded index.
	Backend string `yaml:"backend" json:"backend,omitempty"`
	// Links are the link types from this object type to others (links.go).
	Links []LinkSpec `yaml:"links" json:"links,omitempty"`
	// Implements maps interface apiNames to how this type implements them
	// (interfaces.go).
	Implements map[string]ImplementationSpec `yaml:"implements" json:"implements,omitempty"`
}

// ReadMode is how a build reads the snapshots between its checkpoint and
// its target.
type ReadMode string

// Read modes.
const (
	// ReadModeChangelog: appends, replaces, overwrites and deletes are all
	// processed incrementally, by comparing rows with the baseline.
	ReadModeChangelog ReadMode = "changelog"
	// ReadModeAppendOnly: only ranges of append and replace snapshots are
	// incremental, and then only the rows of appended files are read; any
	// other snapshot in the range makes the build full.
	ReadModeAppendOnly ReadMode = "appendOnly"
)

// MergeOnReadPolicy is what a build does with snapshots that have live
// merge-on-read delete files (position deletes, equality deletes,
// deletion vectors).
type MergeOnReadPolicy string

// Merge-on-read policies.
const (
	// MergeOnReadRefuse: such a snapshot fails the build with a
	// merge-on-read error and the index stays at its last good state.
	MergeOnReadRefuse MergeOnReadPolicy = "refuse"
	// MergeOnReadIndex: the build applies the delete files, incrementally.
	MergeOnReadIndex MergeOnReadPolicy = "index"
)

// IndexesMergeOnRead reports whether the spec opts in to merge-on-read.
func (s *TypeSpec) IndexesMergeOnRead() bool { return s.MergeOnRead == MergeOnReadIndex }

// Mode is the read mode of the spec, with the default filled in.
func (s *TypeSpec) Mode() ReadMode { return cmp.Or(s.ReadMode, ReadModeChangelog) }

// PropertySpec maps one property to one column.
type PropertySpec struct {
	Column string     `yaml:"column" json:"column"`
	Search SearchRole `yaml:"search" json:"search,omitempty"`
	// Type reads the column as a semantic type instead of its Iceberg
	// type: geopoint, geoshape or vector; empty for the column's own type.
	Type string `yaml:"type" json:"type,omitempty"`
	// Dimension and Similarity (cosine, dotProduct, euclidean) configure a
	// vector property.
	Dimension   int    `yaml:"dimension" json:"dimension,omitempty"`
	Similarity  string `yaml:"similarity" json:"similarity,omitempty"`
	DisplayName string `yaml:"displayName" json:"displayName,omitempty"`
	Description string `yaml:"description" json:"description,omitempty"`
}

// FieldError is a config error that names the offending field by its path
// in the config file (objectTypes[0].properties.name.column).
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

var (
	typeNamePattern     = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)
	propertyNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// ValidAPIName reports whether s can be an object type apiName.
func ValidAPIName(s string) bool { return typeNamePattern.MatchString(s) && len(s) <= 100 }

// Validate checks what can be checked without the table: names, roles and
// policies. field is the path of the spec in the config (objectTypes[2]).
func (s *TypeSpec) Validate(field string) error {
	var errs []error
	bad := func(sub, format string, args ...any) {
		errs = append(errs, &FieldError{Field: field + sub, Msg: fmt.Sprintf(format, args...)})
	}
	if s.APIName == "" {
		bad(".apiName", "is required")
	} else if !ValidAPIName(s.APIName) {
		bad(".apiName", "%q must start with a letter and hold only letters, digits and _", s.APIName)
	}
	if s.Table == "" {
		bad(".table", "is required (<catalog>.<namespace>.<table>)")
	} else if parts := strings.Split(s.Table, "."); len(parts) < 3 || slices.Contains(parts, "") {
		bad(".table", "%q must be <catalog>.<namespace...>.<table>", s.Table)
	}
	if s.PollInterval < 0 {
		bad(".pollInterval", "must not be negative")
	}
	if s.SemanticVersion < 0 {
		bad(".semanticVersion", "must not be negative")
	}
	switch s.OnInvalidRow {
	case "", InvalidRowSkip, InvalidRowFail:
	default:
		bad(".onInvalidRow", "%q must be skip or fail", s.OnInvalidRow)
	}
	switch s.ReadMode {
	case "", ReadModeChangelog, ReadModeAppendOnly:
	default:
		bad(".readMode", "%q must be changelog or appendOnly", s.ReadMode)
	}
	switch s.MergeOnRead {
	case "", MergeOnReadRefuse:
	case MergeOnReadIndex:
		if s.ReadMode == ReadModeAppendOnly {
			bad(".mergeOnRead", "index needs readMode changelog: an appendOnly baseline keeps no row keys per file to apply deletes to")
		}
	default:
		bad(".mergeOnRead", "%q must be refuse or index", s.MergeOnRead)
	}
	for i, k := range s.PrimaryKey {
		if k == "" {
			bad(fmt.Sprintf(".primaryKey[%d]", i), "is empty")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[name]
		if !propertyNamePattern.MatchString(name) || len(name) > 100 {
			bad(".properties."+name, "property apiName must start with a letter or _ and hold only letters, digits and _")
		}
		if strings.HasPrefix(name, "__") {
			bad(".properties."+name, "property apiNames starting with __ are reserved")
		}
		if p.Column == "" {
			bad(".properties."+name+".column", "is required")
		}
		switch p.Type {
		case "":
		case KindGeoPoint.String(), KindGeoShape.String(), KindVector.String():
			// Resolve refuses the types whose readers have not landed.
		default:
			bad(".properties."+name+".type", "%q must be geopoint, geoshape or vector", p.Type)
		}
		validateVector(".properties."+name, p, bad)
		switch p.Search {
		case "", SearchText, SearchKeyword, SearchNumeric, SearchDate, SearchBoolean, SearchNone:
		default:
			bad(".properties."+name+".search", "%q must be one of text, keyword, numeric, date, boolean, none", p.Search)
		}
	}
	return errors.Join(errs...)
}

// Resolve checks the spec against the columns of the table (in table order)
// and its identifier columns, and returns the object type.
//
// Properties default to every supported column (apiName = column name);
// unsupported columns are then skipped. A mapped unsupported column, a
// mapped column the table does not have, or a primary key that is neither
// configured nor given by the table's identifier fields is an error.
func (s *TypeSpec) Resolve(columns []Column, identifier []string) (*Type, error) {
	byName := make(map[string]Column, len(columns))
	for _, c := range columns {
		byName[c.Name] = c
	}
	t := &Type{
		APIName:            s.APIName,
		DisplayName:        cmp.Or(s.DisplayName, s.APIName),
		PluralDisplayName:  cmp.Or(s.PluralDisplayName, cmp.Or(s.DisplayName, s.APIName)),
		Description:        s.Description,
		Table:              s.Table,
		SemanticVersion:    s.SemanticVersion,
		RequireIncremental: s.RequireIncremental,
		OnInvalidRow:       cmp.Or(s.OnInvalidRow, InvalidRowSkip),
	}
	if len(s.Properties) == 0 {
		for _, c := range columns {
			if c.Unsupported != "" || (c.Type.Kind == KindStruct && structUnsupported(c) != "") {
				continue
			}
			if !propertyNamePattern.MatchString(c.Name) {
				return nil, &FieldError{Field: s.APIName + ".properties",
					Msg: fmt.Sprintf("column %q is not a valid property apiName; list the properties explicitly", c.Name)}
			}
			p := Property{APIName: c.Name, Column: c.Name, FieldID: c.FieldID, Type: c.Type, Search: DefaultRole(c.Type)}
			if c.Type.Kind == KindStruct {
				p.Search = ""
				ps, err := structProperties(s.APIName+".properties."+c.Name, p, c)
				if err != nil {
					return nil, err
				}
				t.Properties = append(t.Properties, ps...)
				continue
			}
			t.Properties = append(t.Properties, p)
		}
	} else {
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			ps := s.Properties[name]
			c, ok := byName[ps.Column]
			if !ok {
				return nil, &FieldError{Field: s.APIName + ".properties." + name + ".column",
					Msg: fmt.Sprintf("table %s has no column %q%s", s.Table, ps.Column, suggest(ps.Column, columnNames(columns)))}
			}
			switch ps.Type {
			case "":
			case KindGeoPoint.String(), KindGeoShape.String():
				p, err := geoProperty(s.APIName+".properties."+name, name, ps, c, s.Table)
				if err != nil {
					return nil, err
				}
				t.Properties = append(t.Properties, p)
				continue
			case KindVector.String():
				vp, err := vectorProperty(s.APIName+".properties."+name, Property{APIName: name, DisplayName: ps.DisplayName,
					Description: ps.Description, Column: c.Name, FieldID: c.FieldID}, ps, c)
				if err != nil {
					return nil, err
				}
				t.Properties = append(t.Properties, vp)
				continue
			default: // Validate refuses it first
				return nil, &FieldError{Field: s.APIName + ".properties." + name + ".type", Msg: fmt.Sprintf("%q must be geopoint, geoshape or vector", ps.Type)}
			}
			if c.Unsupported != "" {
				return nil, &FieldError{Field: s.APIName + ".properties." + name + ".column",
					Msg: fmt.Sprintf("column %q of table %s is %s, which cannot be a property", c.Name, s.Table, c.Unsupported)}
			}
			if c.Type.Kind == KindStruct {
				sp, err := structProperties(s.APIName+".properties."+name, Property{APIName: name, DisplayName: ps.DisplayName,
					Description: ps.Description, Column: c.Name, FieldID: c.FieldID, Search: ps.Search}, c)
				if err != nil {
					return nil, err
				}
				t.Properties = append(t.Properties, sp...)
				continue
			}
			role := ps.Search
			if role == "" {
				role = DefaultRole(c.Type)
			} else if !slices.Contains(rolesFor(c.Type), role) {
				return nil, &FieldError{Field: s.APIName + ".properties." + name + ".search",
					Msg: fmt.Sprintf("search role %s does not fit column %q of type %s (allowed: %s)", role, c.Name, c.Type, joinRoles(rolesFor(c.Type)))}
			}
			t.Properties = append(t.Properties, Property{APIName: name, DisplayName: ps.DisplayName, Description: ps.Description,
				Column: c.Name, FieldID: c.FieldID, Type: c.Type, Search: role})
		}
	}
	if len(t.Properties) == 0 {
		return nil, &FieldError{Field: s.APIName + ".properties", Msg: fmt.Sprintf("table %s has no column that can be a property", s.Table)}
	}

	keyCols := s.PrimaryKey
	keyField := s.APIName + ".primaryKey"
	if len(keyCols) == 0 {
		keyCols = identifier
		if len(keyCols) == 0 {
			return nil, &FieldError{Field: keyField, Msg: fmt.Sprintf("is not set and table %s has no identifier fields", s.Table)}
		}
	}
	for _, kc := range keyCols {
		prop, ok := "", false
		for _, p := range t.Properties { // a column name first, then a property apiName
			if p.Column == kc && !p.Hidden() {
				prop, ok = p.APIName, true
				break
			}
		}
		if !ok {
			if i := t.PropertyIndex(kc); i >= 0 {
				prop, ok = kc, true
			}
		}
		if !ok {
			if _, isCol := byName[kc]; isCol {
				return nil, &FieldError{Field: keyField, Msg: fmt.Sprintf("column %q is not mapped by any property", kc)}
			}
			return nil, &FieldError{Field: keyField, Msg: fmt.Sprintf("table %s has no column %q%s", s.Table, kc, suggest(kc, columnNames(columns)))}
		}
		p, _ := t.Property(prop)
		if p.Type.Kind == KindList || p.Type.Kind == KindStruct || p.Type.Kind == KindVector || p.Type.Kind == KindFloat || p.Type.Kind == KindDouble {
			return nil, &FieldError{Field: keyField, Msg: fmt.Sprintf("column %q of type %s cannot be part of a primary key", kc, p.Type)}
		}
		if slices.Contains(t.PrimaryKey, prop) {
			return nil, &FieldError{Field: keyField, Msg: fmt.Sprintf("column %q is listed twice", kc)}
		}
		t.PrimaryKey = append(t.PrimaryKey, prop)
	}
	// Primary key properties first, in key order; the rest keep their order.
	slices.SortStableFunc(t.Properties, func(a, b Property) int {
		ia, ib := slices.Index(t.PrimaryKey, a.APIName), slices.Index(t.PrimaryKey, b.APIName)
		if ia < 0 {
			ia = len(t.PrimaryKey)
		}
		if ib < 0 {
			ib = len(t.PrimaryKey)
		}
		return cmp.Compare(ia, ib)
	})
	t.index() // the order is final; readers share the type from here on

	t.TitleProperty = s.TitleProperty
	if t.TitleProperty == "" {
		t.TitleProperty = t.PrimaryKey[0]
	} else if t.PropertyIndex(t.TitleProperty) < 0 {
		names := make([]string, len(t.Properties))
		for i, p := range t.Properties {
			names[i] = p.APIName
		}
		return nil, &FieldError{Field: s.APIName + ".titleProperty", Msg: fmt.Sprintf("%q is not a property of %s%s", t.TitleProperty, s.APIName, suggest(t.TitleProperty, names))}
	} else if p, _ := t.Property(t.TitleProperty); p.Type.Kind == KindStruct {
		return nil, &FieldError{Field: s.APIName + ".titleProperty", Msg: fmt.Sprintf("%q is a struct; a title is a scalar property", t.TitleProperty)}
	}
	return t, nil
}

// suggest is the tail of an error about a name that is not there: the
// closest of names, when one is near enough to be what was meant.
func suggest(name string, names []string) string {
	if c := spelling.Meant(name, names); c != "" {
		return fmt.Sprintf(" (did you mean %q?)", c)
	}
	return ""
}

func columnNames(columns []Column) []string {
	out := make([]string, len(columns))
	for i, c := range columns {
		out[i] = c.Name
	}
	return out
}

func joinRoles(rs []SearchRole) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = string(r)
	}
	return strings.Join(s, ", ")
}

// MappingHash fingerprints what decides the content of the index: the
// properties (apiName, column, search role), the primary key and the title.
// Column types are left out on purpose, so that type promotions (int to
// long, float to double, wider decimals) do not force a full rebuild.
func (t *Type) MappingHash() string {
	type prop struct {
		A, C, S string
		T       string `json:",omitempty"` // a semantic type: the stored values change form
		V       string `json:",omitempty"` // a vector's dimension and similarity: a change rebuilds its index
	}
	v := struct {
		Props []prop
		Key   []string
		Title string
	}{Key: t.PrimaryKey, Title: t.TitleProperty}
	for _, p := range t.Properties {
		pr := prop{A: p.APIName, C: p.Column, S: string(p.Search)}
		if p.Type.Kind >= KindGeoPoint {
			pr.T = p.Type.Kind.String()
		}
		if p.Type.Kind == KindVector {
			pr.V = p.Type.String() + " " + p.Type.Similarity
		}
		v.Props = append(v.Props, pr)
	}
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// KeyHash fingerprints the primary key definition.
func (t *Type) KeyHash() string {
	var cols []string
	for _, k := range t.PrimaryKey {
		p, _ := t.Property(k)
		cols = append(cols, p.Column)
	}
	return strings.Join(cols, ",")
}
