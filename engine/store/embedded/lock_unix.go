//go:build unix

package embedded

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockDir takes an exclusive flock on dir/wfpp.lock so that two servers never
// share one set of SQLite files: FerretDB caches their metadata in memory.
// flock is per open file, so it also stops a second Start in this process.
func lockDir(dir string) (*os.File, error) {
	path := filepath.Join(dir, "wfpp.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("embedded: opening lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s; stop the other wfpp or set WFPP_DATA_DIR", ErrDataDirLocked, dir)
		}
		return nil, fmt.Errorf("embedded: locking %s: %w", path, err)
	}
	return f, nil
}

func unlockDir(f *os.File) error {
	return f.Close() // closing the file releases the flock
}
