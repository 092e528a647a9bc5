package testtool

import (
	"bytes"
	"sync"
)

// SyncBuffer is a bytes.Buffer safe for one writer and readers at once: a
// child process's stderr (exec.Cmd copies into it from its own goroutine)
// or a log, read while it runs.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
