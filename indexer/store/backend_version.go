package store

import (
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// keyBackendVersion holds, in an object type's bucket, the last version
// reserved for the writes of the type to its search backend.
var keyBackendVersion = []byte("backendVersion")

// ReserveVersion commits and returns the next version of the writes of an
// object type to its search backend: one more than the last reserved. A
// batch goes out with a version reserved before it, so that a crash after
// the backend took the batch and before the build committed cannot let the
// next build send other changes at the same version (the backend would
// take them for a replay and refuse them).
func (d *DB) ReserveVersion(name string) (int64, error) {
	var v int64
	err := d.db.Update(func(tx *bolt.Tx) error {
		tb, err := typeBucket(tx, name, true)
		if err != nil {
			return err
		}
		if b := tb.Get(keyBackendVersion); b != nil {
			last, n := binary.Uvarint(b)
			if n <= 0 {
				return fmt.Errorf("backend version %x: not a varint", b)
			}
			v = int64(last)
		}
		v++
		return tb.Put(keyBackendVersion, binary.AppendUvarint(nil, uint64(v)))
	})
	if err != nil {
		return 0, fmt.Errorf("object type %s: reserve a backend version: %w", name, err)
	}
	return v, nil
}
