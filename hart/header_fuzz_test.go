package hart_test

import (
	"bufio"
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/hart"
	"github.com/hab-gc/hab-gc/internal/storetest"
)

// FuzzParseHeader: any input fails wrapping ErrNotHart or gives a HART-1
// header with a key name and a signature, and no field holding a newline
// or a space.
func FuzzParseHeader(f *testing.F) {
	f.Add([]byte(storetest.HartHeader))
	f.Add([]byte("HART-1\r\nk\r\nBLAKE2b\r\nc2ln\r\n\r\n"))
	f.Add([]byte("HART-1\n\n\n\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := hart.ParseHeader(bufio.NewReader(bytes.NewReader(data)))
		if err != nil {
			if !errors.Is(err, hart.ErrNotHart) {
				t.Fatalf("error %v does not wrap hart.ErrNotHart", err)
			}
			return
		}
		if h.Format != "HART-1" || h.KeyName == "" || h.Signature == "" || strings.ContainsAny(h.KeyName+h.HashType+h.Signature, "\n\r ") {
			t.Fatalf("accepted %q as %+v", data, h)
		}
	})
}
