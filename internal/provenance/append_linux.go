package provenance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hab-gc/hab-gc/internal/safeio"
)

// lockWait bounds Append's wait for another holder of the file's lock (an
// operator's flock(1), say): the record is dropped rather than the watch
// held.
const lockWait = 10 * time.Second

// Append adds r to fsRoot's file, made durable before it returns. Past
// compactAt the file is first rewritten with the last record of each
// release directory still installed. Nothing on the way is followed, and
// anything but a private regular file at File is refused. It waits for
// the file's lock until ctx ends, at most lockWait.
func Append(ctx context.Context, fsRoot string, r Record) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	root, err := safeio.OpenRootBeneath(fsRoot, Dir, true)
	if err != nil {
		return err
	}
	defer root.Close()
	f, err := lockedFile(ctx, root)
	if err != nil {
		return err
	}
	defer func() { f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() > compactAt {
		if err := compact(fsRoot, root); err != nil {
			return fmt.Errorf("compacting %s: %w", f.Name(), err)
		}
		f.Close()
		if f, err = lockedFile(ctx, root); err != nil {
			return err
		}
		if fi, err = f.Stat(); err != nil {
			return err
		}
	}
	if fi.Size() > 0 {
		// A crash may have cut the last line: begin a new one.
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
			line = append([]byte{'\n'}, line...)
		}
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		return err
	}
	return f.Sync()
}

// lockedFile opens File to append, holding its lock.
func lockedFile(ctx context.Context, root *os.Root) (*os.File, error) {
	f, err := safeio.OpenPrivate(root, File, os.O_RDWR|os.O_APPEND|os.O_CREATE, safeio.IsEUID, true)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, lockWait)
	defer cancel()
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err != unix.EWOULDBLOCK && err != unix.EINTR {
			break
		}
		select {
		case <-ctx.Done():
			err = fmt.Errorf("%s is locked by another process: %w", f.Name(), context.Cause(ctx))
		case <-time.After(20 * time.Millisecond):
			continue
		}
		break
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// compact rewrites File with the last record of each release directory
// still installed, through a temporary file renamed over it.
func compact(fsRoot string, root *os.Root) error {
	recs, err := Read(fsRoot)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	for key, r := range recs {
		var st unix.Stat_t
		if unix.Lstat(filepath.Join(fsRoot, "hab", "pkgs", filepath.FromSlash(r.Ident)), &st) != nil ||
			uint64(st.Dev) != key[0] || uint64(st.Ino) != key[1] {
			continue
		}
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		buf.Write(append(b, '\n'))
	}
	const tmp = File + ".new"
	root.Remove(tmp)
	f, err := safeio.OpenPrivate(root, tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, safeio.IsEUID, true)
	if err != nil {
		return err
	}
	_, err = f.Write(buf.Bytes())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, File)
	}
	if err != nil {
		root.Remove(tmp)
		return err
	}
	d, err := root.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
