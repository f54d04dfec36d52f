package leaktest

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
)

// Find returns the path (such as ".engine.cfg.Auth.Tokens[0].Token";
// pointers are followed silently) of a string or byte slice reachable from
// v that holds secret, or "" when there is none. Values behind unsafe pointers, channels and functions
// are not followed; neither are the elements of slices and arrays of
// numbers other than bytes, which cannot hold a string, nor arrays of more
// than maxArray elements.
func Find(v any, secret string) string {
	if secret == "" {
		panic("leaktest: empty secret")
	}
	w := &walker{secret: secret, seen: map[visit]bool{}}
	w.walk(reflect.ValueOf(v), "")
	return w.found
}

// maxArray bounds the arrays Find reads: larger ones are the types of
// memory maps, whose length says nothing of what is mapped.
const maxArray = 1 << 20

type visit struct {
	ptr uintptr
	typ reflect.Type
}

type walker struct {
	secret string
	seen   map[visit]bool
	found  string
}

func (w *walker) walk(v reflect.Value, path string) {
	if w.found != "" || !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.String:
		if strings.Contains(v.String(), w.secret) {
			w.found = path
		}
	case reflect.Pointer:
		if v.IsNil() || w.once(v.Pointer(), v.Type()) {
			return
		}
		w.walk(v.Elem(), path)
	case reflect.Interface:
		if !v.IsNil() {
			w.walk(v.Elem(), path)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			w.walk(v.Field(i), path+"."+v.Type().Field(i).Name)
		}
	case reflect.Slice:
		if v.IsNil() || w.once(v.Pointer(), v.Type()) {
			return
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if bytes.Contains(v.Bytes(), []byte(w.secret)) {
				w.found = path
			}
			return
		}
		w.elems(v, path)
	case reflect.Array:
		if v.Len() > maxArray {
			return // a type for memory maps, such as bbolt's *[maxMapSize]byte
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			b := make([]byte, v.Len())
			for i := range b {
				b[i] = byte(v.Index(i).Uint())
			}
			if bytes.Contains(b, []byte(w.secret)) {
				w.found = path
			}
			return
		}
		w.elems(v, path)
	case reflect.Map:
		if v.IsNil() || w.once(v.Pointer(), v.Type()) {
			return
		}
		it := v.MapRange()
		for it.Next() {
			key := fmt.Sprintf("%s[%v]", path, short(it.Key()))
			w.walk(it.Key(), key)
			w.walk(it.Value(), key)
		}
	}
}

// elems walks the elements of a slice or array that may hold strings.
func (w *walker) elems(v reflect.Value, path string) {
	if numeric(v.Type().Elem().Kind()) {
		return
	}
	for i := range v.Len() {
		w.walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
	}
}

// once reports whether the value at ptr of type t was walked already,
// and marks it walked.
func (w *walker) once(ptr uintptr, t reflect.Type) bool {
	k := visit{ptr, t}
	if w.seen[k] {
		return true
	}
	w.seen[k] = true
	return false
}

func numeric(k reflect.Kind) bool {
	return k >= reflect.Bool && k <= reflect.Complex128
}

// short renders a map key for a path without calling its methods.
func short(k reflect.Value) string {
	switch k.Kind() {
	case reflect.String:
		return fmt.Sprintf("%q", k.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fmt.Sprint(k.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return fmt.Sprint(k.Uint())
	}
	return k.Type().String()
}
