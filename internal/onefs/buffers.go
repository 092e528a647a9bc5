package onefs

// Buffers are what walks reuse, one walk after another (WalkAt,
// MeasureOpen): the buffer getdents reads entries into, and the lists of
// entries of the directories walked. A scan measures tens of thousands of
// releases of a few small directories each; a list made afresh for each
// directory, grown one append at a time, was about 35 MB of garbage at
// 130,000 releases, which raised the scan's peak heap. The zero value is
// ready; one walk at a time may use it.
type Buffers struct {
	dirents []byte
	lists   [][]entry
}

// entry is a directory entry: its name and the type getdents reports
// (DT_UNKNOWN on file systems that do not say).
type entry struct {
	name string
	typ  uint8
}

// direntBuf returns the getdents buffer.
func (b *Buffers) direntBuf() []byte {
	if b.dirents == nil {
		b.dirents = make([]byte, 8<<10)
	}
	return b.dirents
}

// list returns an empty list to append a directory's entries to: one a
// walk left, or nil.
func (b *Buffers) list() []entry {
	n := len(b.lists)
	if n == 0 {
		return nil
	}
	l := b.lists[n-1]
	b.lists = b.lists[:n-1]
	return l
}

// done takes back a directory's list once the walk has left it; its
// names are dropped so that they do not outlive the walk.
func (b *Buffers) done(l []entry) {
	if cap(l) == 0 {
		return
	}
	clear(l[:cap(l)])
	b.lists = append(b.lists, l[:0])
}
