// errors.h - the tool's error types and the exit codes they map to.
//
// Exit codes follow iproute2's `bridge` (6.1), measured: a usage error, an
// unknown word or device and a kernel error all exit 255 (exit(-1) /
// return -1 from main); a failed dump and a failed -batch exit 1.
#pragma once
#include <stdexcept>
#include <string>

namespace xbridge {

constexpr int EXIT_OK = 0;
constexpr int EXIT_DUMP = 1;     // "Dump terminated", -batch failures
constexpr int EXIT_ERROR = 255;  // usage, unknown device, kernel error

// Any error the tool reports: message printed as is to stderr.
class Error : public std::runtime_error {
public:
	explicit Error(const std::string &msg, int code = EXIT_ERROR)
		: std::runtime_error(msg), code_(code) {}
	int code() const { return code_; }

private:
	int code_;
};

// A wrong or missing command-line word.
class UsageError : public Error {
public:
	explicit UsageError(const std::string &msg) : Error(msg, EXIT_ERROR) {}
};

// The kernel refused a request: message is "Error: <extack>" or
// "RTNETLINK answers: <strerror>".
class KernelError : public Error {
public:
	KernelError(const std::string &msg, int err) : Error(msg, EXIT_ERROR), err_(err) {}
	int err() const { return err_; }

private:
	int err_;
};

}  // namespace xbridge
