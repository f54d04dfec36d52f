package wire

import (
	"bytes"
	"encoding/json"
	"testing"
)

var jsonScanSeeds = []string{
	`{}`, `[]`, `{"a":1}`, ` { "type" : "eq" , "field":"x","value":[1,2,{"b":"}"}]} `,
	`{"a":1,"a":2}`, `["x",{"y":[]} , null,true,-1.5e3]`, `"plain"`, `"esc\"aped\u0041\n"`,
	`"héllo"`, `null`, `1`, `-0`, `01`, `1.`, `.5`, `1e`, `{"a"}`, `{"a":}`, `[1,]`, `{"\u0074ype":"x"}`,
	`{"k":"v"} x`, `[1 2]`, `"unterminated`, `{"a":[1,2}`, `tru`, ``,
}

// FuzzJSONScan checks the scanner against encoding/json: on well-formed
// JSON it splits objects and arrays and reads strings as encoding/json
// does; on anything else it never panics and never accepts what
// encoding/json refuses as an object, array or string.
func FuzzJSONScan(f *testing.F) {
	for _, s := range jsonScanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		valid := json.Valid(raw)
		var m map[string]json.RawMessage
		objErr := json.Unmarshal(raw, &m)
		fs, ok := JSONObject(raw)
		if valid && ok != (objErr == nil && m != nil) {
			t.Fatalf("JSONObject(%q) ok %v, encoding/json %v", raw, ok, objErr)
		}
		if ok && valid {
			if len(m) > len(fs) {
				t.Fatalf("JSONObject(%q): %d fields, encoding/json %d keys", raw, len(fs), len(m))
			}
			for k, v := range m {
				if got := fs.Get(k); !bytes.Equal(got, v) {
					t.Fatalf("JSONObject(%q)[%q] = %q, encoding/json %q", raw, k, got, v)
				}
			}
		}
		var a []json.RawMessage
		arrErr := json.Unmarshal(raw, &a)
		elems, ok := JSONArray(raw)
		if valid && ok != (arrErr == nil && a != nil) {
			t.Fatalf("JSONArray(%q) ok %v, encoding/json %v", raw, ok, arrErr)
		}
		if ok && valid {
			if len(elems) != len(a) {
				t.Fatalf("JSONArray(%q): %d elements, encoding/json %d", raw, len(elems), len(a))
			}
			for i := range a {
				if !bytes.Equal(elems[i], a[i]) {
					t.Fatalf("JSONArray(%q)[%d] = %q, encoding/json %q", raw, i, elems[i], a[i])
				}
			}
		}
		var s string
		strErr := json.Unmarshal(raw, &s)
		isStr := strErr == nil && len(bytes.TrimSpace(raw)) > 0 && bytes.TrimSpace(raw)[0] == '"'
		got, ok := JSONString(raw)
		if valid && ok != isStr {
			t.Fatalf("JSONString(%q) ok %v, encoding/json %v", raw, ok, strErr)
		}
		if ok && valid && got != s {
			t.Fatalf("JSONString(%q) = %q, encoding/json %q", raw, got, s)
		}
		if !valid && ok && strErr != nil {
			t.Fatalf("JSONString(%q) accepted what encoding/json refuses: %v", raw, strErr)
		}
		tr := bytes.TrimSpace(raw)
		wantNum := valid && len(tr) > 0 && (tr[0] == '-' || (tr[0] >= '0' && tr[0] <= '9'))
		if IsJSONNumber(tr) != wantNum && valid {
			t.Fatalf("IsJSONNumber(%q) = %v, want %v", tr, !wantNum, wantNum)
		}
		if IsJSONNumber(raw) && !json.Valid(raw) {
			t.Fatalf("IsJSONNumber(%q) accepted an invalid number", raw)
		}
	})
}

func TestJSONFields_get(t *testing.T) {
	for _, tt := range []struct {
		raw, key, want string
	}{
		{`{"a":1,"b":"x"}`, "b", `"x"`},
		{`{"a":1,"a":2}`, "a", `2`}, // the last one, as encoding/json's maps
		{`{"a":1}`, "b", ``},
		{`{ "a" : [1, 2] }`, "a", `[1, 2]`},
	} {
		t.Run(tt.raw, func(t *testing.T) {
			fs, ok := JSONObject([]byte(tt.raw))
			if !ok {
				t.Fatalf("JSONObject(%q) refused", tt.raw)
			}
			if got := string(fs.Get(tt.key)); got != tt.want {
				t.Errorf("get(%q) = %q, want %q", tt.key, got, tt.want)
			}
		})
	}
}
