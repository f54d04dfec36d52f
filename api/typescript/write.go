package typescript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Write writes files under dir, creating the directories they need, and
// removes the definitions an earlier Write left there that files no longer
// hold (a type removed from the config), so that nothing stale is
// compiled. It removes only files that start with the generated header.
func Write(dir string, files []File) error {
	keep := map[string]bool{}
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.Path))
		keep[path] = true
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("write definitions: %w", err)
		}
		if err := os.WriteFile(path, f.Text, 0o644); err != nil {
			return fmt.Errorf("write definitions: %w", err)
		}
	}
	for _, sub := range []string{"ontology/objects", "ontology/interfaces"} {
		entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(sub)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("write definitions: %w", err)
		}
		for _, e := range entries {
			path := filepath.Join(dir, filepath.FromSlash(sub), e.Name())
			if keep[path] || e.IsDir() || !strings.HasSuffix(e.Name(), ".ts") {
				continue
			}
			generated, err := startsWithHeader(path)
			if err != nil {
				return fmt.Errorf("write definitions: %w", err)
			}
			if generated {
				if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return fmt.Errorf("write definitions: remove a stale definition: %w", err)
				}
			}
		}
	}
	return nil
}

// startsWithHeader reports whether the file at path starts with the
// header of generated files.
func startsWithHeader(path string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	buf := make([]byte, len(header))
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return false, err
	}
	return bytes.Equal(buf[:n], []byte(header)), nil
}
