package hart_test

import (
	"bytes"
	"fmt"

	"github.com/hab-gc/hab-gc/hart"
	"github.com/hab-gc/hab-gc/internal/storetest"
)

// Read identifies an archive by its IDENT and reads the dependencies it
// will install with, as `hab pkg install` does before it unpacks (here an
// archive shaped as Habitat's 2016 test fixture: parent directories first).
func ExampleRead() {
	b := storetest.Archive{
		Ident:   "core/redis/7.0.1/20220201000000",
		Deps:    []string{"core/glibc/2.35/20220101000000"},
		Parents: true,
	}.Bytes()
	a, err := hart.Read(bytes.NewReader(b), hart.DefaultLimits(), hart.WantDeps)
	if err != nil {
		panic(err)
	}
	fmt.Println(a.Ident, a.Target, a.TDeps)
	// Output: core/redis/7.0.1/20220201000000 x86_64-linux [core/glibc/2.35/20220101000000]
}
