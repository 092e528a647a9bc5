package docs_test

import (
	"fmt"

	"github.com/hab-gc/hab-gc/docs"
)

// Every page is a topic of `hab-gc help`.
func ExampleLookup() {
	t, ok := docs.Lookup("exit-codes")
	fmt.Println(ok, t.Title)
	// Output: true Exit codes
}
