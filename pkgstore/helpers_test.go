package pkgstore_test

import (
	"strconv"
	"time"
)

func itoa(n int) string { return strconv.Itoa(n) }

func nanotime() int64 { return time.Now().UnixNano() }
