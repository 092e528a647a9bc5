package pressure_test

import (
	"fmt"

	"github.com/hab-gc/hab-gc/pressure"
)

// Limits turn "below 2 GiB free, free up to 10% of the file system" into
// bytes for a file system of a given size (Limit then keeps, of a plan's
// removals, only what reaching the upper limit takes).
func ExampleLimits() {
	min, _ := pressure.ParseSize("2GiB")
	max, _ := pressure.ParseSize("10%")
	l := pressure.Limits{MinFree: min, MaxFree: max}
	lo, hi, err := l.Resolve(100 << 30) // a 100 GiB file system
	if err != nil {
		panic(err)
	}
	fmt.Println(pressure.Size{Bytes: lo}, pressure.Size{Bytes: hi})
	// Output: 2.0 GiB 10.0 GiB
}
