package indexer

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/objects"
	bolt "go.etcd.io/bbolt"
)

// Layout of state.db:
//
//	types/<ObjectType>/checkpoint      JSON Checkpoint: what the index reflects
//	types/<ObjectType>/build           JSON buildState: a full build in progress
//	types/<ObjectType>/gen-<n>/        one generation:
//	    objects    key -> uvarint file id | uvarint document | 8-byte row hash | object encoding
//	    files      data file path -> uvarint id | uvarint size | uvarint records
//	    fileids    8-byte id -> data file path
//	    filekeys   8-byte file id | key -> (empty)
//	    manifests  manifest path -> uvarint file ids of its live data files
//	    dirty      4-byte document -> uvarint version | key: documents changed
//	               since the generation's index file (key empty: now free)
//	    meta       nextFileID, count, version (of the objects), layout
//
// Keys are the order-preserving primary-key encodings of package objects.
// Documents are the dense numbers the search index (package index) uses;
// the store assigns them, so the index can always be rebuilt from it.
// Generations written before layout 3 have no documents in their records
// and no dirty bucket: they are served read-only (numbered at load) until
// the full build their layout forces replaces them.
var (
	bucketTypes   = []byte("types")
	keyCheckpoint = []byte("checkpoint")
	keyBuild      = []byte("build")

	bucketObjects   = []byte("objects")
	bucketFiles     = []byte("files")
	bucketFileIDs   = []byte("fileids")
	bucketFileKeys  = []byte("filekeys")
	bucketManifests = []byte("manifests")
	bucketDirty     = []byte("dirty")
	bucketMeta      = []byte("meta")

	keyNextFileID = []byte("nextFileID")
	keyCount      = []byte("count")
	keyVersion    = []byte("version")
	keyLayout     = []byte("layout")
)

// storeLayout is the layout new generations are written in.
const storeLayout = 3

// Checkpoint is the state an object type's index reflects.
type Checkpoint struct {
	SnapshotID      int64         `json:"snapshotId"`
	SchemaID        int           `json:"schemaId"`
	MappingHash     string        `json:"mappingHash"`
	SemanticVersion int           `json:"semanticVersion"`
	Generation      int           `json:"generation"`
	Type            *objects.Type `json:"type"`
	Objects         int64         `json:"objects"`
	BuiltAt         time.Time     `json:"builtAt"`
	InvalidRows     InvalidRows   `json:"invalidRows"`
	LastBuild       *BuildResult  `json:"lastBuild,omitempty"`
}

// InvalidRows counts the rows skipped under onInvalidRow: skip.
type InvalidRows struct {
	Count   int64                  `json:"count"`
	Samples []changelog.InvalidRow `json:"samples"`
}

// buildState records a full build in progress, so that a restart resumes it.
type buildState struct {
	Generation  int           `json:"generation"`
	Target      int64         `json:"target"`
	MappingHash string        `json:"mappingHash"`
	Type        *objects.Type `json:"type"`
	StartedAt   time.Time     `json:"startedAt"`
	// PartialFile and PartialRows: rows of a data file already committed.
	PartialFile string `json:"partialFile,omitempty"`
	PartialRows int64  `json:"partialRows,omitempty"`
	// Stats accumulated by the interrupted runs.
	Skipped int64                  `json:"skipped,omitempty"`
	Samples []changelog.InvalidRow `json:"samples,omitempty"`
}

func genName(n int) []byte { return fmt.Appendf(nil, "gen-%08d", n) }

func typeBucket(tx *bolt.Tx, name string, create bool) (*bolt.Bucket, error) {
	if create {
		root, err := tx.CreateBucketIfNotExists(bucketTypes)
		if err != nil {
			return nil, err
		}
		return root.CreateBucketIfNotExists([]byte(name))
	}
	root := tx.Bucket(bucketTypes)
	if root == nil {
		return nil, nil
	}
	return root.Bucket([]byte(name)), nil
}

func readJSON[T any](b *bolt.Bucket, key []byte) (*T, error) {
	if b == nil {
		return nil, nil
	}
	raw := b.Get(key)
	if raw == nil {
		return nil, nil
	}
	v := new(T)
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, fmt.Errorf("decode %s: %w", key, err)
	}
	return v, nil
}

func putJSON(b *bolt.Bucket, key []byte, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, raw)
}

// loadCheckpoint reads the checkpoint and any build in progress of a type.
func loadCheckpoint(db *bolt.DB, name string) (cp *Checkpoint, bs *buildState, err error) {
	err = db.View(func(tx *bolt.Tx) error {
		tb, err := typeBucket(tx, name, false)
		if err != nil || tb == nil {
			return err
		}
		if cp, err = readJSON[Checkpoint](tb, keyCheckpoint); err != nil {
			return err
		}
		bs, err = readJSON[buildState](tb, keyBuild)
		return err
	})
	if cp != nil && cp.Type != nil {
		cp.Type = reindexType(cp.Type)
	}
	return cp, bs, err
}

// reindexType returns a copy whose lookup index is rebuilt after decoding.
func reindexType(t *objects.Type) *objects.Type {
	c := *t
	c.Properties = append([]objects.Property(nil), t.Properties...)
	_ = c.PropertyIndex("") // builds the name index
	return &c
}

// generations lists the generation numbers stored for a type.
func generations(tx *bolt.Tx, name string) ([]int, error) {
	tb, err := typeBucket(tx, name, false)
	if err != nil || tb == nil {
		return nil, err
	}
	var out []int
	err = tb.ForEachBucket(func(k []byte) error {
		var n int
		if _, err := fmt.Sscanf(string(k), "gen-%d", &n); err == nil {
			out = append(out, n)
		}
		return nil
	})
	return out, err
}

// genBuckets are the buckets of one generation inside one transaction.
type genBuckets struct {
	root, objects, files, fileIDs, fileKeys, manifests, dirty, meta *bolt.Bucket
	layout                                                          uint64
}

func openGen(tx *bolt.Tx, name string, gen int, create bool) (*genBuckets, error) {
	tb, err := typeBucket(tx, name, create)
	if err != nil {
		return nil, err
	}
	if tb == nil {
		return nil, fmt.Errorf("object type %s has no stored state", name)
	}
	var g genBuckets
	if create {
		if g.root, err = tb.CreateBucketIfNotExists(genName(gen)); err != nil {
			return nil, err
		}
		for _, x := range []struct {
			b    **bolt.Bucket
			name []byte
		}{{&g.objects, bucketObjects}, {&g.files, bucketFiles}, {&g.fileIDs, bucketFileIDs}, {&g.fileKeys, bucketFileKeys},
			{&g.manifests, bucketManifests}, {&g.dirty, bucketDirty}, {&g.meta, bucketMeta}} {
			if *x.b, err = g.root.CreateBucketIfNotExists(x.name); err != nil {
				return nil, err
			}
		}
		if g.meta.Get(keyLayout) == nil {
			if err := g.meta.Put(keyLayout, binary.AppendUvarint(nil, storeLayout)); err != nil {
				return nil, err
			}
		}
		g.layout = storeLayout
		return &g, nil
	}
	if g.root = tb.Bucket(genName(gen)); g.root == nil {
		return nil, fmt.Errorf("object type %s: generation %d is missing from the store", name, gen)
	}
	g.objects, g.files, g.fileIDs, g.fileKeys = g.root.Bucket(bucketObjects), g.root.Bucket(bucketFiles), g.root.Bucket(bucketFileIDs), g.root.Bucket(bucketFileKeys)
	g.manifests, g.dirty, g.meta = g.root.Bucket(bucketManifests), g.root.Bucket(bucketDirty), g.root.Bucket(bucketMeta)
	if g.objects == nil || g.files == nil || g.fileIDs == nil || g.fileKeys == nil || g.manifests == nil || g.meta == nil {
		return nil, fmt.Errorf("object type %s: generation %d is incomplete in the store", name, gen)
	}
	g.layout, _ = binary.Uvarint(g.meta.Get(keyLayout))
	if g.layout == storeLayout && g.dirty == nil {
		return nil, fmt.Errorf("object type %s: generation %d is incomplete in the store", name, gen)
	}
	return &g, nil
}

// readGen opens the buckets a reader of objects needs: objects and meta.
func readGen(tx *bolt.Tx, name string, gen int) (*genBuckets, error) {
	root := tx.Bucket(bucketTypes)
	if root == nil {
		return nil, fmt.Errorf("object type %s has no stored state", name)
	}
	tb := root.Bucket([]byte(name))
	if tb == nil {
		return nil, fmt.Errorf("object type %s has no stored state", name)
	}
	g := &genBuckets{root: tb.Bucket(genName(gen))}
	if g.root == nil {
		return nil, fmt.Errorf("object type %s: generation %d is missing from the store", name, gen)
	}
	g.objects, g.meta = g.root.Bucket(bucketObjects), g.root.Bucket(bucketMeta)
	if g.objects == nil || g.meta == nil {
		return nil, fmt.Errorf("object type %s: generation %d is incomplete in the store", name, gen)
	}
	g.layout, _ = binary.Uvarint(g.meta.Get(keyLayout))
	return g, nil
}

func (g *genBuckets) count() int64 {
	v, _ := binary.Varint(g.meta.Get(keyCount))
	return v
}

// version is the version of the generation's objects: every commit that
// changes them increments it, and the index snapshot that reflects them
// carries the same number.
func (g *genBuckets) version() uint64 {
	v, _ := binary.Uvarint(g.meta.Get(keyVersion))
	return v
}

// record is one stored object.
type record struct {
	fileID  uint64
	doc     uint32
	hash    uint64
	encoded []byte
}

// record splits a stored object value.
func (g *genBuckets) record(v []byte) (record, error) {
	var r record
	id, n := binary.Uvarint(v)
	if n <= 0 {
		return r, objects.ErrCorrupt
	}
	r.fileID, v = id, v[n:]
	if g.layout >= storeLayout {
		doc, n := binary.Uvarint(v)
		if n <= 0 || doc > 1<<32-1 {
			return r, objects.ErrCorrupt
		}
		r.doc, v = uint32(doc), v[n:]
	}
	if len(v) < 8 {
		return r, objects.ErrCorrupt
	}
	r.hash, r.encoded = binary.BigEndian.Uint64(v), v[8:]
	return r, nil
}

func (r record) append(b []byte) []byte {
	b = binary.AppendUvarint(b, r.fileID)
	b = binary.AppendUvarint(b, uint64(r.doc))
	b = binary.BigEndian.AppendUint64(b, r.hash)
	return append(b, r.encoded...)
}

func docKey(d uint32) []byte     { return binary.BigEndian.AppendUint32(nil, d) }
func fileIDKey(id uint64) []byte { return binary.BigEndian.AppendUint64(nil, id) }

type fileRecord struct {
	ID      uint64
	Size    int64
	Records int64
}

func (r fileRecord) encode() []byte {
	b := binary.AppendUvarint(nil, r.ID)
	b = binary.AppendUvarint(b, uint64(r.Size))
	return binary.AppendUvarint(b, uint64(r.Records))
}

func decodeFileRecord(v []byte) (fileRecord, error) {
	var r fileRecord
	var vals [3]uint64
	for i := range vals {
		x, n := binary.Uvarint(v)
		if n <= 0 {
			return r, objects.ErrCorrupt
		}
		vals[i], v = x, v[n:]
	}
	return fileRecord{ID: vals[0], Size: int64(vals[1]), Records: int64(vals[2])}, nil
}
