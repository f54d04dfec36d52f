package objects

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// LinkSpec declares a link type from the object type that lists it (the
// source) to Target, as the config file writes it. Either ForeignKey or
// Through says how objects link:
//
//   - ForeignKey names a property of the source whose value is a primary
//     key of Target: each source object links to at most one target
//     (cardinality ONE), and the reverse side, when named, to many.
//   - Through names a join table whose rows pair a source key (SourceKey)
//     with a target key (TargetKey): many to many, both ways. The join
//     table is indexed like any table, as a link table (see LinkTableSpec),
//     and its rows are not served as objects.
//
// Links are resolved when a query follows them, from the indexed foreign
// keys and join rows, so an edit of either table changes the links after
// that table's build.
type LinkSpec struct {
	APIName        string       `yaml:"apiName" json:"apiName"`
	DisplayName    string       `yaml:"displayName" json:"displayName,omitempty"`
	Target         string       `yaml:"target" json:"target"`
	ForeignKey     string       `yaml:"foreignKey" json:"foreignKey,omitempty"`
	Through        *ThroughSpec `yaml:"through" json:"through,omitempty"`
	ReverseAPIName string       `yaml:"reverseApiName" json:"reverseApiName,omitempty"`
	// ReverseDisplayName names the reverse side (default: ReverseAPIName).
	ReverseDisplayName string `yaml:"reverseDisplayName" json:"reverseDisplayName,omitempty"`
}

// ThroughSpec is the join table of a many-to-many link: a table reference
// and its two key columns.
type ThroughSpec struct {
	Table     string `yaml:"table" json:"table"`
	SourceKey string `yaml:"sourceKey" json:"sourceKey"`
	TargetKey string `yaml:"targetKey" json:"targetKey"`
}

// LinkSide is one direction of a link type, as an object type's outgoing
// link types list it.
type LinkSide struct {
	APIName     string
	DisplayName string
	Source      string // object type the side starts from
	Target      string // object type it leads to
	Many        bool   // cardinality MANY; else ONE
	// How the side resolves. With a foreign key on the source (a ONE side),
	// SourceProperty holds it and TargetProperty is empty: the target's
	// primary key. With a foreign key on the target (the reverse, MANY
	// side), TargetProperty holds it. Through a join table, Table is the
	// link table type, SourceProperty and TargetProperty its columns that
	// hold source and target keys.
	SourceProperty string
	TargetProperty string
	Table          string
	// LinkType names the link type both sides belong to: the declaring
	// object type and the declared apiName (Order.customer).
	LinkType string
	// Field is where the config declares the link (objectTypes[1].links[0]),
	// for errors.
	Field string
}

// ForeignKeyProperty is the property of the source that holds the target's
// primary key, on the ONE side of a foreign-key link; else "".
func (l *LinkSide) ForeignKeyProperty() string {
	if l.Table == "" && !l.Many {
		return l.SourceProperty
	}
	return ""
}

// LinkTableName is the name of the link table type of a many-to-many link:
// it holds a dot, so it can never be an object type's apiName.
func LinkTableName(source, link string) string { return source + "." + link }

// LinkTableSpec is the type spec a link's join table is indexed as: its
// two key columns, both part of its primary key.
func (l *LinkSpec) LinkTableSpec(source string) TypeSpec {
	t := l.Through
	return TypeSpec{APIName: LinkTableName(source, l.APIName), Table: t.Table, PrimaryKey: []string{t.SourceKey, t.TargetKey},
		Properties: map[string]PropertySpec{t.SourceKey: {Column: t.SourceKey}, t.TargetKey: {Column: t.TargetKey}}}
}

// Links returns the outgoing link sides of every object type of specs,
// both declared and reverse sides, in declaration order, after
// ValidateLinks accepted them.
func Links(specs []TypeSpec) map[string][]LinkSide {
	out := map[string][]LinkSide{}
	for i, s := range specs {
		for j, l := range s.Links {
			field := fmt.Sprintf("objectTypes[%d].links[%d]", i, j)
			lt := s.APIName + "." + l.APIName
			fwd := LinkSide{LinkType: lt, APIName: l.APIName, DisplayName: cmp.Or(l.DisplayName, l.APIName), Source: s.APIName, Target: l.Target, Field: field}
			rev := LinkSide{LinkType: lt, APIName: l.ReverseAPIName, DisplayName: cmp.Or(l.ReverseDisplayName, l.ReverseAPIName), Source: l.Target, Target: s.APIName, Many: true, Field: field}
			if l.Through != nil {
				table := LinkTableName(s.APIName, l.APIName)
				fwd.Many, fwd.Table, fwd.SourceProperty, fwd.TargetProperty = true, table, l.Through.SourceKey, l.Through.TargetKey
				rev.Table, rev.SourceProperty, rev.TargetProperty = table, l.Through.TargetKey, l.Through.SourceKey
			} else {
				fwd.SourceProperty = l.ForeignKey
				rev.TargetProperty = l.ForeignKey
			}
			out[s.APIName] = append(out[s.APIName], fwd)
			if l.ReverseAPIName != "" {
				out[l.Target] = append(out[l.Target], rev)
			}
		}
	}
	return out
}

// ValidateLinks checks the links of specs against each other: names,
// targets, keys, and that no two sides leaving one type, and no side and a
// declared property of that type, share a name. What needs the tables (the
// types of keys, a join table's columns) is checked when the link is
// resolved (CheckLink) and when the join table is indexed.
func ValidateLinks(specs []TypeSpec) []error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	byName := map[string]*TypeSpec{}
	for i := range specs {
		byName[specs[i].APIName] = &specs[i]
	}
	// names[type][side name] = the field that declared it first.
	names := map[string]map[string]string{}
	claim := func(typ, name, field, what string) {
		if names[typ] == nil {
			names[typ] = map[string]string{}
		}
		if prev, dup := names[typ][name]; dup {
			bad(field, "%s %q of %s is already the name of the link %s", what, name, typ, prev)
			return
		}
		if t := byName[typ]; t != nil {
			if _, isProp := t.Properties[name]; isProp {
				bad(field, "%s %q collides with property %s of %s", what, name, name, typ)
				return
			}
		}
		names[typ][name] = field
	}
	for i, s := range specs {
		for j, l := range s.Links {
			field := fmt.Sprintf("objectTypes[%d].links[%d]", i, j)
			if !propertyNamePattern.MatchString(l.APIName) || strings.HasPrefix(l.APIName, "__") {
				bad(field+".apiName", "%q must start with a letter or _ and hold only letters, digits and _", l.APIName)
				continue
			}
			target := byName[l.Target]
			switch {
			case l.Target == "":
				bad(field+".target", "is required: the apiName of the object type the link leads to")
			case target == nil:
				bad(field+".target", "%q is not an object type of the config", l.Target)
			}
			switch {
			case l.ForeignKey != "" && l.Through != nil:
				bad(field, "set either foreignKey or through, not both")
			case l.ForeignKey == "" && l.Through == nil:
				bad(field+".foreignKey", "is required (a property of %s holding a primary key of %s), or through for a join table", s.APIName, l.Target)
			case l.ForeignKey != "":
				if len(s.Properties) > 0 {
					if _, ok := s.Properties[l.ForeignKey]; !ok {
						bad(field+".foreignKey", "%q is not a property of %s", l.ForeignKey, s.APIName)
					}
				}
				if target != nil && len(target.PrimaryKey) > 1 {
					bad(field+".foreignKey", "%s has a composite primary key (%s): a foreign key can hold only a single-property key", l.Target, strings.Join(target.PrimaryKey, ", "))
				}
			default:
				th := l.Through
				if parts := strings.Split(th.Table, "."); len(parts) < 3 || slices.Contains(parts, "") {
					bad(field+".through.table", "%q must be <catalog>.<namespace...>.<table>", th.Table)
				}
				if th.SourceKey == "" {
					bad(field+".through.sourceKey", "is required: the join table's column holding %s's primary key", s.APIName)
				}
				if th.TargetKey == "" {
					bad(field+".through.targetKey", "is required: the join table's column holding %s's primary key", l.Target)
				}
				if th.SourceKey != "" && th.SourceKey == th.TargetKey {
					bad(field+".through.targetKey", "must differ from sourceKey")
				}
				for _, k := range []string{th.SourceKey, th.TargetKey} {
					if k != "" && !propertyNamePattern.MatchString(k) {
						bad(field+".through", "column %q of the join table must be a valid property name", k)
					}
				}
				for _, t := range []*TypeSpec{&specs[i], target} {
					if t != nil && len(t.PrimaryKey) > 1 {
						bad(field+".through", "%s has a composite primary key: a join table can hold only single-property keys", t.APIName)
					}
				}
			}
			claim(s.APIName, l.APIName, field+".apiName", "link")
			if l.ReverseAPIName != "" {
				if !propertyNamePattern.MatchString(l.ReverseAPIName) || strings.HasPrefix(l.ReverseAPIName, "__") {
					bad(field+".reverseApiName", "%q must start with a letter or _ and hold only letters, digits and _", l.ReverseAPIName)
				} else if target != nil {
					claim(l.Target, l.ReverseAPIName, field+".reverseApiName", "reverse link")
				}
			}
		}
	}
	return errs
}

// CheckLink checks a link side against the resolved types it joins (table
// is the link table of a many-to-many link): the properties it reads exist
// and are scalars, the types it reaches by primary key have single-property
// keys, and the keys it matches are of one kind (integer and long match
// each other). Errors name the link and where the config declares it.
func CheckLink(l *LinkSide, src, tgt, table *Type) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("link %s of %s (%s): %s", l.APIName, l.Source, l.Field, fmt.Sprintf(format, args...))
	}
	if _, ok := src.Property(l.APIName); ok {
		return fail("its name collides with property %s of %s", l.APIName, l.Source)
	}
	key := func(t *Type) (Property, error) {
		if len(t.PrimaryKey) != 1 {
			return Property{}, fail("%s has a composite primary key (%s): links need a single-property key", t.APIName, strings.Join(t.PrimaryKey, ", "))
		}
		p, _ := t.Property(t.PrimaryKey[0])
		return p, nil
	}
	prop := func(t *Type, name, what string) (Property, error) {
		p, ok := t.Property(name)
		switch {
		case !ok:
			return p, fail("%s %s is not a property of %s", what, name, t.APIName)
		case p.Type.Kind == KindList:
			return p, fail("%s %s of %s is an array: a key must be a scalar", what, name, t.APIName)
		}
		return p, nil
	}
	match := func(a, b Property, at, bt string) error {
		ka, kb := a.Type.Kind, b.Type.Kind
		integer := func(k Kind) bool { return k == KindInteger || k == KindLong }
		if ka != kb && !(integer(ka) && integer(kb)) {
			return fail("%s.%s is %s, but %s.%s is %s", at, a.APIName, a.Type, bt, b.APIName, b.Type)
		}
		return nil
	}
	sk, err := key(src)
	if err != nil && (l.Many || l.Table != "") {
		return err
	}
	tk, err := key(tgt)
	if err != nil && (!l.Many || l.Table != "") {
		return err
	}
	switch {
	case l.Table != "":
		a, err := prop(table, l.SourceProperty, "join column")
		if err != nil {
			return err
		}
		b, err := prop(table, l.TargetProperty, "join column")
		if err != nil {
			return err
		}
		if err := match(sk, a, src.APIName, table.Table); err != nil {
			return err
		}
		return match(tk, b, tgt.APIName, table.Table)
	case l.Many:
		fk, err := prop(tgt, l.TargetProperty, "foreignKey")
		if err != nil {
			return err
		}
		return match(fk, sk, tgt.APIName, src.APIName)
	}
	fk, err := prop(src, l.SourceProperty, "foreignKey")
	if err != nil {
		return err
	}
	return match(fk, tk, src.APIName, tgt.APIName)
}
