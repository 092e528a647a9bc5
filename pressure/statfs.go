package pressure

// Space is a file system's free space and size, in bytes.
type Space struct {
	// Avail is what an unprivileged writer may still use (f_bavail).
	Avail int64 `json:"avail"`
	// Total is the file system's size (f_blocks).
	Total int64 `json:"total"`
}

// FreeFunc reads the free space of the file system that matters (the
// store's). Statfs makes one.
type FreeFunc func() (Space, error)
