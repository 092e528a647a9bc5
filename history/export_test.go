package history

import "context"

// Append is AppendContext without a context, for the tests.
func (j Journal) Append(recs []Record) error { return j.AppendContext(context.Background(), recs) }
