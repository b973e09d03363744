package pagescrub

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// leaf is a 512-byte table leaf page: two cells at the end, one free
// block, and junk (an old cell's bytes) in the gap and the free block.
func leaf(pgno int64) []byte {
	p := bytes.Repeat([]byte{'x'}, 512)
	off := 0
	if pgno == 1 {
		off = 100
	}
	put := func(i, v int) { binary.BigEndian.PutUint16(p[i:], uint16(v)) }
	p[off] = 0x0d
	put(off+1, 400) // first free block
	put(off+3, 2)   // cells
	put(off+5, 300) // cell content area
	p[off+7] = 0
	put(off+8, 480) // cell pointers
	put(off+10, 496)
	put(400, 0) // free block: no next, 16 bytes
	put(402, 16)
	return p
}

func TestPage(t *testing.T) {
	for _, pgno := range []int64{1, 2} {
		p := leaf(pgno)
		before := bytes.Clone(p)
		if !Page(p, pgno) {
			t.Fatalf("page %d: nothing scrubbed", pgno)
		}
		off := 0
		if pgno == 1 {
			off = 100
		}
		if gap := p[off+12 : 300]; !bytes.Equal(gap, make([]byte, len(gap))) {
			t.Errorf("page %d: the gap between pointers and cells still holds bytes", pgno)
		}
		if free := p[404:416]; !bytes.Equal(free, make([]byte, len(free))) {
			t.Errorf("page %d: the free block still holds bytes", pgno)
		}
		if !bytes.Equal(p[300:400], before[300:400]) || !bytes.Equal(p[416:], before[416:]) || !bytes.Equal(p[:off+12], before[:off+12]) {
			t.Errorf("page %d: a cell or the header changed", pgno)
		}
		if Page(p, pgno) {
			t.Errorf("page %d: a second scrub changed it again", pgno)
		}
	}
	overflow := bytes.Repeat([]byte{'x'}, 512) // not a b-tree page
	if Page(overflow, 3) || !bytes.Equal(overflow, bytes.Repeat([]byte{'x'}, 512)) {
		t.Error("a page that is not a b-tree page was changed")
	}
	bad := leaf(2)
	binary.BigEndian.PutUint16(bad[3:], 400) // more cell pointers than fit
	want := bytes.Clone(bad)
	if Page(bad, 2) || !bytes.Equal(bad, want) {
		t.Error("a page whose header does not add up was changed")
	}
}
