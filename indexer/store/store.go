package store

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/objects"
	bolt "go.etcd.io/bbolt"
)

// Bucket names and keys of the layout in doc.go.
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

// Layout is the layout new generations are written in.
const Layout = 3

// BuildState records a full build in progress, so that a restart resumes it.
type BuildState struct {
	Generation  int    `json:"generation"`
	Target      int64  `json:"target"`
	MappingHash string `json:"mappingHash"`
	// ReadMode is the objects.ReadMode the build reads with ("":
	// changelog): a build resumes only in the mode it started in, whose
	// baseline its chunks wrote.
	ReadMode  string        `json:"readMode,omitempty"`
	Type      *objects.Type `json:"type"`
	StartedAt time.Time     `json:"startedAt"`
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

// readJSON decodes the value of key into v; found is false when there is
// none.
func readJSON(b *bolt.Bucket, key []byte, v any) (found bool, err error) {
	if b == nil {
		return false, nil
	}
	raw := b.Get(key)
	if raw == nil {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return false, fmt.Errorf("decode %s: %w", key, err)
	}
	return true, nil
}

func putJSON(b *bolt.Bucket, key []byte, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, raw)
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
