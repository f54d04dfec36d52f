package typescript

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// quote renders s as a single-quoted TypeScript string literal (a value
// or a literal type).
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\u2028', '\u2029':
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04x`, r)
				continue
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// docText makes s safe inside a /** */ comment: a "*/" would end it.
func docText(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "*/", "*\\/"), "\r", "")
}

// propertyDoc is the generator's comment on a property: its display name
// and description, or that the ontology has neither.
func propertyDoc(w *writer, displayName, description string) {
	var lines []string
	if displayName != "" {
		lines = append(lines, "  display name: "+docText(quote(displayName)))
	}
	if description != "" {
		lines = append(lines, "  description: "+docText(strings.ReplaceAll(description, "\n", " ")))
	}
	if len(lines) == 0 {
		lines = []string{"(no ontology metadata)"}
	}
	w.line("/**")
	for i, l := range lines {
		if i < len(lines)-1 {
			l += ","
		}
		w.line(" * " + l)
	}
	w.line(" */")
}

// compareNames orders apiNames as the generator does (JavaScript's
// localeCompare): case-insensitively, "_" before digits before letters,
// and lower case before upper case between names that differ only in
// case. Go's byte order would put every upper case letter first.
func compareNames(a, b string) int {
	key := func(s string) []int {
		k := make([]int, 0, len(s))
		for _, r := range s {
			switch {
			case r == '_':
				k = append(k, 0)
			case unicode.IsDigit(r):
				k = append(k, 1+int(r))
			default:
				k = append(k, 0x100+int(unicode.ToLower(r)))
			}
		}
		return k
	}
	if c := slices.Compare(key(a), key(b)); c != 0 {
		return c
	}
	// The same but for case: lower case first, from the left.
	for i := 0; i < len(a) && i < len(b); i++ {
		la, lb := unicode.IsLower(rune(a[i])), unicode.IsLower(rune(b[i]))
		if la != lb {
			if la {
				return -1
			}
			return 1
		}
	}
	return cmp.Compare(a, b)
}

// sortedNames returns names sorted by compareNames.
func sortedNames(names []string) []string {
	out := slices.Clone(names)
	slices.SortFunc(out, compareNames)
	return out
}

// writer writes indented lines of TypeScript.
type writer struct {
	b      strings.Builder
	indent int
}

// line writes one line at the current indentation (an empty line has
// none).
func (w *writer) line(s string) {
	if s != "" {
		w.b.WriteString(strings.Repeat("  ", w.indent))
		w.b.WriteString(s)
	}
	w.b.WriteByte('\n')
}

// open writes a line that opens a block and indents what follows.
func (w *writer) open(s string) {
	w.line(s)
	w.indent++
}

// close ends a block with s.
func (w *writer) close(s string) {
	w.indent--
	w.line(s)
}

func (w *writer) bytes() []byte { return []byte(w.b.String()) }

// unionOf renders names as a union of string literal types, or never.
func unionOf(names []string) string {
	if len(names) == 0 {
		return "never"
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = quote(n)
	}
	return strings.Join(quoted, " | ")
}

// tupleOf renders names as a tuple of string literal types.
func tupleOf(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = quote(n)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}
