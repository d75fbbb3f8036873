"""The L2 prefetch the prefetching probes share (window_prefetch, coop_ticket_softmax)."""
import triton
import triton.language as tl


@triton.jit
def prefetch_l2(ptrs):
    """``prefetch.global.L2`` of every address in ``ptrs`` (one a 128-byte line is enough); returns
    zeros, so the call is kept (inline assembly with a result, not pure)."""
    return tl.inline_asm_elementwise("prefetch.global.L2 [$1];\n\tmov.u32 $0, 0;", "=r,l", [ptrs],
                                     dtype=tl.int32, is_pure=False, pack=1)
