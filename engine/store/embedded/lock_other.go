//go:build !unix

package embedded

import "os"

// lockDir does not lock on this platform; do not start two servers on one DataDir.
func lockDir(string) (*os.File, error) { return nil, nil }

func unlockDir(*os.File) error { return nil }
