package objects

import "errors"

// InvalidRowKey is the primary key of a row whose conversion failed with
// err, for the message that names the row: Batch.Row converts properties
// in order, primary key first, so when the value that failed is not part
// of the key the key is already read. "" when it is not (the key itself
// failed, or err is not an InvalidValueError).
func (t *Type) InvalidRowKey(o *Object, err error) string {
	var iv *InvalidValueError
	if !errors.As(err, &iv) {
		return ""
	}
	failed := t.PropertyIndex(iv.Property)
	for _, k := range t.KeyIndexes() {
		if k < 0 || k >= failed || k >= len(o.Values) || o.Values[k] == nil {
			return ""
		}
	}
	return t.KeyString(o)
}
