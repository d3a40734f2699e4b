// The error a Verilated model raises instead of aborting the process.
//
// `vl_fatal` and `vl_stop` (this crate's replacements, see vlrt_handlers.cpp) throw a
// VlrtError; a model's C++ shim catches it around every call into the model and hands the
// message to Rust as an error code. No exception ever crosses into Rust.
#ifndef VLRT_H_
#define VLRT_H_

#include <stdexcept>
#include <string>

struct VlrtError : public std::runtime_error {
    explicit VlrtError(const std::string& what) : std::runtime_error(what) {}
};

// Number of `$finish` calls seen by this thread's models (counted, never exits).
unsigned long vlrt_finish_count();

#endif
