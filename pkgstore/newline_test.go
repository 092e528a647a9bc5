package pkgstore_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"

	"runtime"
)

// TestProblemNamesOnOneLine: a directory whose name holds a newline (or a
// tab, a carriage return) is named in a problem with the character
// escaped, so a planted name cannot add lines of its own to what people
// read (a fake "OK" line, a fake problem) through the path.
func TestProblemNamesOnOneLine(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("NTFS refuses control characters in names (ERROR_INVALID_NAME): no such directory can be planted on Windows")
	}
	for _, name := range []string{"2020\n0101000005", "2020\r0101000005", "2020\t0101000005"} {
		t.Run(strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(name), func(t *testing.T) {
			b := storetest.New(t)
			b.Pkg("core/a/1/20200101000000")
			dir := b.Path("hab/pkgs/core/a/1/" + name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(dir+"/IDENT", []byte("core/a/1/20200101000005\n"), 0o644)
			inv, err := pkgstore.Scan(context.Background(), b.Root, pkgstore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(inv.Problems) == 0 {
				t.Fatal("no problem reported for the directory")
			}
			for _, p := range inv.Problems {
				if strings.ContainsAny(p.String(), "\n\r\t") {
					t.Errorf("problem %q: a raw control character from the name", p.String())
				}
			}
		})
	}
}
