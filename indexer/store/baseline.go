package store

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// BaselineKey is where the baseline of a generation places a key: the data
// file its row lives in and the row hash.
type BaselineKey struct {
	File string
	Hash uint64
}

// Baseline is the whole baseline of a generation as a diff sees it.
type Baseline struct {
	// Keys is what Lookup answers for every stored key.
	Keys map[string]BaselineKey
	// FileKeys is what FileKeys yields for every data file of the
	// baseline, in the order it yields them.
	FileKeys map[string][]string
	// Aliases counts the file ids that name a file other than their own
	// (writer_alias.go).
	Aliases int
}

// Baseline reads the baseline of a generation into memory, for checks and
// tests that compare two builds' baselines: it holds every key.
func (d *DB) Baseline(name string, gen int) (*Baseline, error) {
	out := &Baseline{Keys: map[string]BaselineKey{}, FileKeys: map[string][]string{}}
	err := d.db.View(func(tx *bolt.Tx) error {
		g, err := openGen(tx, name, gen, false)
		if err != nil {
			return err
		}
		w := &Writer{name: name, gen: gen, b: g, paths: map[uint64]string{}, ids: map[string]uint64{}}
		c := g.objects.Cursor()
		first, _ := c.First()
		last, _ := c.Last()
		w.keys.cover(first, last)
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			file, hash, ok, err := w.Lookup(k)
			if err != nil || !ok {
				return fmt.Errorf("object type %s: baseline of key %x: %v", name, k, err)
			}
			out.Keys[string(k)] = BaselineKey{File: file, Hash: hash}
		}
		var files []string
		w.BaselineFiles(func(p string) bool { files = append(files, p); return true })
		for _, p := range files {
			keys := []string{}
			if err := w.FileKeys(p, func(k []byte) error { keys = append(keys, string(k)); return nil }); err != nil {
				return err
			}
			out.FileKeys[p] = keys
		}
		if b := g.root.Bucket(bucketAliases); b != nil {
			out.Aliases = b.Stats().KeyN
		}
		return nil
	})
	return out, err
}
