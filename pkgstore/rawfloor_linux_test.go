package pkgstore_test

import (
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// rawFloorScan is floorScan with the least system calls a reader of the
// same files can make: no *os.File (so none of the poller's fcntl and
// epoll calls), each name opened relative to its directory's descriptor,
// each file read with one read(2) into a buffer of its fstat size plus
// one. Per release: open, four times open/fstat/read/close, close; per
// VERSION directory: open, two getdents, close. It returns the releases
// read, or -1 where the platform has no such reader.
func rawFloorScan(b *testing.B, store string, workers int) int {
	jobs := make(chan [2]string, 64)
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	names := func(fd int, buf []byte) []string {
		var out []string
		for {
			n, err := unix.Getdents(fd, buf)
			if err != nil {
				b.Error(err)
				return out
			}
			if n <= 0 {
				return out
			}
			_, _, out = unix.ParseDirent(buf[:n], -1, out)
		}
	}
	const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dbuf, fbuf := make([]byte, 8<<10), make([]byte, 64<<10)
			n := 0
			for j := range jobs {
				nfd, err := unix.Open(j[0]+"/"+j[1], dirFlags, 0)
				if err != nil {
					b.Error(err)
					continue
				}
				for _, v := range names(nfd, dbuf) {
					vfd, err := unix.Openat(nfd, v, dirFlags, 0)
					if err != nil {
						b.Error(err)
						continue
					}
					for _, r := range names(vfd, dbuf) {
						rfd, err := unix.Openat(vfd, r, dirFlags, 0)
						if err != nil {
							b.Error(err)
							continue
						}
						for _, f := range [4]string{"TARGET", "IDENT", "DEPS", "TDEPS"} {
							fd, err := unix.Openat(rfd, f, unix.O_RDONLY|unix.O_CLOEXEC, 0)
							if err == unix.ENOENT {
								continue
							}
							if err != nil {
								b.Error(err)
								continue
							}
							var st unix.Stat_t
							if err := unix.Fstat(fd, &st); err != nil || st.Size+1 > int64(len(fbuf)) {
								b.Errorf("%s: %v, %d bytes", f, err, st.Size)
							} else if _, err := unix.Read(fd, fbuf[:st.Size+1]); err != nil {
								b.Error(err)
							}
							unix.Close(fd)
						}
						unix.Close(rfd)
						n++
					}
					unix.Close(vfd)
				}
				unix.Close(nfd)
			}
			mu.Lock()
			total += n
			mu.Unlock()
		}()
	}
	ofd, err := unix.Open(store, dirFlags, 0)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	for _, o := range names(ofd, buf) {
		fd, err := unix.Openat(ofd, o, dirFlags, 0)
		if err != nil {
			continue // the lock file
		}
		for _, n := range names(fd, make([]byte, 64<<10)) {
			jobs <- [2]string{store + "/" + o, n}
		}
		unix.Close(fd)
	}
	unix.Close(ofd)
	close(jobs)
	wg.Wait()
	return total
}
