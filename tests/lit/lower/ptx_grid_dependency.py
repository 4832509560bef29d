# tl.extra.cuda.gdc_wait() and gdc_launch_dependents() (grid dependency control, programmatic dependent
# launch on sm_90): griddepcontrol through inline PTX, as Triton emits it, in program order around the
# loads they guard; ptxas assembles it for sm_90a.
#
# RUN: kiln compile %s --kernel add --signature "*fp32:16, *fp32:16, *fp32:16, i32, 1024, 1" --emit ptx --arch sm_90a | FileCheck %s
# RUN: kiln compile %s --kernel add --signature "*fp32:16, *fp32:16, *fp32:16, i32, 1024, 0" --emit ptx --arch sm_90a | FileCheck %s --check-prefix=OFF
# CHECK:      griddepcontrol.wait;
# CHECK:      ld.global
# CHECK:      griddepcontrol.launch_dependents;
# CHECK:      st.global
# OFF-NOT:    griddepcontrol
import triton
import triton.language as tl


@triton.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, USE_GDC: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if USE_GDC:
        tl.extra.cuda.gdc_wait()
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    if USE_GDC:
        tl.extra.cuda.gdc_launch_dependents()
    tl.store(out_ptr + offs, x + y, mask=mask)
