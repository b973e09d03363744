package pgtest_test

import (
	"io/fs"
	"strconv"
	"syscall"
)

func itoa(n int) string { return strconv.Itoa(n) }

func statUID(fi fs.FileInfo) uint32 { return fi.Sys().(*syscall.Stat_t).Uid }
