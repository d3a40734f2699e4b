// Replacements for the Verilator runtime's user-definable handlers (compiled with
// VL_USER_FATAL, VL_USER_STOP and VL_USER_FINISH): the runtime's versions call abort()
// or exit(), which would take the whole Rust process down with them.
#include "verilated.h"
#include "vlrt.h"

#include <sstream>

static thread_local unsigned long t_finish_count = 0;

unsigned long vlrt_finish_count() { return t_finish_count; }

static std::string where(const char* filename, int linenum, const char* hier) {
    std::ostringstream s;
    if (filename && filename[0]) s << filename << ":" << linenum << ": ";
    if (hier && hier[0]) s << "(" << hier << ") ";
    return s.str();
}

void vl_fatal(const char* filename, int linenum, const char* hier, const char* msg) {
    Verilated::threadContextp()->gotError(true);
    Verilated::threadContextp()->gotFinish(true);
    throw VlrtError(where(filename, linenum, hier) + (msg ? msg : "fatal error"));
}

void vl_stop(const char* filename, int linenum, const char* hier) {
    Verilated::threadContextp()->gotError(true);
    Verilated::threadContextp()->gotFinish(true);
    throw VlrtError(where(filename, linenum, hier) + "Verilog $stop");
}

void vl_finish(const char* filename, int linenum, const char* hier) {
    (void)filename;
    (void)linenum;
    (void)hier;
    ++t_finish_count;
    Verilated::threadContextp()->gotFinish(true);
}
