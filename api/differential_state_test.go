package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// The ground truth of one state: every object read back from the store,
// with the terms of its text values; the value order the oracle uses; how
// objects and query values look on the wire; and the HTTP client.

// dfObj is one object of the ground truth.
type dfObj struct {
	key  []byte
	o    *objects.Object
	toks map[int][][]string // text properties: the terms of each element
}

type dfState struct {
	typ   *objects.Type
	objs  []*dfObj // primary-key order
	byKey map[string]*dfObj
}

// dfTerms is the definition of terms, query.Analyze (tested against its
// documented rules in package query): api imports no analyzer of its own.
func dfTerms(s string) []string { return query.Analyze(s) }

// dfElems lists the non-null elements of a value (a scalar is one).
func dfElems(v any) []any {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		return slices.DeleteFunc(slices.Clone(x), func(e any) bool { return e == nil })
	}
	return []any{v}
}

// mustDfState reads every object of the served view.
func mustDfState(tb testing.TB, ix *indexer.Indexer) *dfState {
	tb.Helper()
	v, err := ix.View(dfTypeName)
	if err != nil {
		tb.Fatal(err)
	}
	defer v.Release()
	s := &dfState{typ: v.Type(), byKey: map[string]*dfObj{}}
	err = v.Scan(nil, func(key []byte, o *objects.Object) bool {
		ob := &dfObj{key: bytes.Clone(key), o: o, toks: map[int][][]string{}}
		for i, p := range s.typ.Properties {
			if p.Search != objects.SearchText {
				continue
			}
			for _, e := range dfElems(o.Values[i]) {
				ob.toks[i] = append(ob.toks[i], dfTerms(e.(string)))
			}
		}
		s.objs = append(s.objs, ob)
		s.byKey[string(key)] = ob
		return true
	})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func (s *dfState) prop(name string) (objects.Property, int) {
	i := s.typ.PropertyIndex(name)
	return s.typ.Properties[i], i
}

// checkModel compares the store with the rows the test wrote: the store
// must hold them exactly (keys, and values bit for bit).
func (s *dfState) checkModel(tbl *dfTable) []string {
	var diffs []string
	for _, k := range tbl.sortedKeys() {
		row := tbl.rows[k]
		ob := s.byKey[k]
		if ob == nil {
			diffs = append(diffs, fmt.Sprintf("row %v is not in the store", row[:2]))
			continue
		}
		for i, c := range tbl.cols {
			got := ob.o.Values[s.typ.PropertyIndex(c.name)]
			a, _ := objects.AppendValue(nil, row[i])
			b, _ := objects.AppendValue(nil, got)
			if !bytes.Equal(a, b) {
				diffs = append(diffs, fmt.Sprintf("object %s: %s = %#v in the store, %#v written", s.typ.KeyString(ob.o), c.name, got, row[i]))
			}
		}
	}
	if len(s.objs) != len(tbl.rows) {
		diffs = append(diffs, fmt.Sprintf("the store holds %d objects, the table %d rows", len(s.objs), len(tbl.rows)))
	}
	return diffs
}

// dfCmp orders two non-null values of one property type: strings by their
// bytes, decimals numerically, everything else by the bytes of
// objects.AppendKey (numbers numerically, doubles in IEEE total order,
// dates and timestamps chronologically, false before true).
func dfCmp(a, b any) int {
	switch x := a.(type) {
	case string:
		return strings.Compare(x, b.(string))
	case objects.Decimal:
		return dfRat(x).Cmp(dfRat(b.(objects.Decimal)))
	}
	ka, err1 := objects.AppendKey(nil, a)
	kb, err2 := objects.AppendKey(nil, b)
	if err1 != nil || err2 != nil {
		panic(fmt.Sprintf("dfCmp %#v %#v: %v %v", a, b, err1, err2))
	}
	return bytes.Compare(ka, kb)
}

func dfRat(d objects.Decimal) *big.Rat {
	return new(big.Rat).SetFrac(d.Unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale)), nil))
}

// dfIdentity names a value for distinct counts and group keys.
func dfIdentity(v any) string {
	switch x := v.(type) {
	case string:
		return "s" + x
	case objects.Decimal:
		return "d" + dfRat(x).RatString()
	}
	k, _ := objects.AppendKey(nil, v)
	return fmt.Sprintf("k%x", k)
}

// dfRender is an object as the wire shows it: its non-null (selected)
// properties rendered by dfValue, __apiName, __primaryKey, __title and
// __rid unless excluded.
func (s *dfState) render(ob *dfObj, sel map[string]bool, excludeRID bool) map[string]any {
	m := map[string]any{"__apiName": s.typ.APIName, "__primaryKey": s.typ.KeyJSON(ob.o)}
	if len(s.typ.PrimaryKey) == 1 {
		i := s.typ.KeyIndexes()[0]
		m["__primaryKey"] = dfValue(s.typ.Properties[i].Type, ob.o.Values[i])
	}
	for i, p := range s.typ.Properties {
		if v := ob.o.Values[i]; v != nil && (sel == nil || sel[p.APIName]) {
			m[p.APIName] = dfValue(p.Type, v)
		}
	}
	if ti := s.typ.TitleIndex(); ob.o.Values[ti] != nil {
		m["__title"] = objects.TextOf(ob.o.Values[ti])
	}
	if !excludeRID {
		m["__rid"] = dfRID(ob.key)
	}
	return m
}

func dfRID(key []byte) string {
	return "ri.ontoindex.main.object." + dfTypeName + "." + objects.DocID(key)
}

// dfCanon is the canonical JSON text of a value: sorted keys, numbers as
// written (responses are decoded with UseNumber, expected values hold
// json.Number, strings and float64, which encode as the server's do).
func dfCanon(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<unencodable %v: %v>", v, err)
	}
	return string(b)
}

// dfValue is a property value as objects render on the wire:
// objects.JSONValue, except that longs (and the elements of arrays of
// longs) are JSON strings, as Foundry sends them.
func dfValue(t objects.DataType, v any) any {
	if t.Primitive().Kind != objects.KindLong {
		return objects.JSONValue(t, v)
	}
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = dfValue(t.Primitive(), e)
		}
		return out
	}
	return v
}

// dfWire renders a query value, in one of the forms the API accepts.
func dfWire(r *rand.Rand, v any) any {
	switch x := v.(type) {
	case int64:
		if r.IntN(5) == 0 {
			return strconv.FormatInt(x, 10)
		}
		return json.Number(strconv.FormatInt(x, 10))
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if r.IntN(5) == 0 {
			return s
		}
		return json.Number(s)
	case objects.Decimal:
		if r.IntN(4) == 0 {
			return json.Number(x.String())
		}
		return x.String()
	case objects.Date:
		return x.String()
	case time.Time:
		if r.IntN(3) == 0 {
			return x.In(time.FixedZone("", -(3*3600 + 1800))).Format(time.RFC3339Nano)
		}
		return x.UTC().Format(time.RFC3339Nano)
	case bool:
		if r.IntN(4) == 0 {
			return strconv.FormatBool(x)
		}
		return x
	}
	return v
}

// dfClient sends requests to the server under test.
type dfClient struct {
	base string
	hc   *http.Client
}

type dfResp struct {
	status int
	raw    []byte
	m      map[string]any
}

func (c *dfClient) do(tb testing.TB, method, path string, body any) dfResp {
	tb.Helper()
	var rd io.Reader
	if body != nil {
		js, err := json.Marshal(body)
		if err != nil {
			tb.Fatalf("encode %v: %v", body, err)
		}
		rd = bytes.NewReader(js)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		tb.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	out := dfResp{status: resp.StatusCode, raw: raw}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	_ = dec.Decode(&out.m)
	return out
}

// dfJSON renders a request for failure messages.
func dfJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func dfShort(raw []byte) string {
	if len(raw) > 600 {
		return string(raw[:600]) + "..."
	}
	return string(raw)
}
