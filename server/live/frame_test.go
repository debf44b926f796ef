package live

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFrameHeader(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 125, 126, 65535, 65536} {
		f := frame(opText, make([]byte, n))
		switch {
		case n <= 125:
			require.Equal(t, []byte{0x81, byte(n)}, f[:2])
		case n <= 65535:
			require.Equal(t, []byte{0x81, 126, byte(n >> 8), byte(n)}, f[:4])
		default:
			require.Equal(t, byte(127), f[1])
			require.Len(t, f, n+10)
		}
	}
}
