// Package tmpfs mounts a small tmpfs for the disk-full faults of the data
// dir, and fills it with a ballast file as another process filling the
// disk would: the disk-full test of cmd/indexer and the data-dir faults of
// `ontolab soak` (internal/soak) both use it.
//
//	if err := tmpfs.Supported(); err != nil {
//		// not Linux, or not root: say why and skip
//	}
//	fs, err := tmpfs.Mount(dir, 64<<20)
//	defer fs.Unmount()
//	err = fs.Fill(0) // no space left
//	err = fs.Drain() // the space returns
//
// Mounting takes Linux and root (CAP_SYS_ADMIN); elsewhere Supported and
// Mount say so.
package tmpfs
