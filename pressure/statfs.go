package pressure

// Space is in bytes.
type Space struct {
	Avail int64 `json:"avail"` // f_bavail: what an unprivileged writer may use
	Total int64 `json:"total"` // f_blocks
}

// FreeFunc reads the store's file system; Statfs makes one.
type FreeFunc func() (Space, error)
