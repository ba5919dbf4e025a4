#pragma once
// Factories of the built-in schedules, listed in schedule.cpp's table.

#include <memory>

#include "mgsim/schedule.hpp"

namespace mgsim {

std::unique_ptr<Schedule> make_wfbp(const ParamValues& given, const SparseOptions& sparse);
std::unique_ptr<Schedule> make_single(const ParamValues& given, const SparseOptions& sparse);
std::unique_ptr<Schedule> make_mgwfbp(const ParamValues& given, const SparseOptions& sparse);
std::unique_ptr<Schedule> make_optimal(const ParamValues& given, const SparseOptions& sparse);
std::unique_ptr<Schedule> make_ddp(const ParamValues& given, const SparseOptions& sparse);
std::unique_ptr<Schedule> make_horovod(const ParamValues& given, const SparseOptions& sparse);
std::unique_ptr<Schedule> make_topk(const ParamValues& given, const SparseOptions& sparse);
std::unique_ptr<Schedule> make_lags(const ParamValues& given, const SparseOptions& sparse);
std::unique_ptr<Schedule> make_omgs(const ParamValues& given, const SparseOptions& sparse);
std::unique_ptr<Schedule> make_omgs_rule(const ParamValues& given, const SparseOptions& sparse);
std::unique_ptr<Schedule> make_p3(const ParamValues& given, const SparseOptions& sparse);
std::unique_ptr<Schedule> make_bytescheduler(const ParamValues& given, const SparseOptions& sparse);
std::unique_ptr<Schedule> make_dear(const ParamValues& given, const SparseOptions& sparse);
std::unique_ptr<Schedule> make_zero1(const ParamValues& given, const SparseOptions& sparse);
std::unique_ptr<Schedule> make_zero2(const ParamValues& given, const SparseOptions& sparse);
std::unique_ptr<Schedule> make_zero3(const ParamValues& given, const SparseOptions& sparse);
std::unique_ptr<Schedule> make_fsdp(const ParamValues& given, const SparseOptions& sparse);

/// The count (ParamSpec::whole) `name` a user gave to `schedule`, or its
/// default, already checked (check_params).
std::int64_t whole_param(std::string_view schedule, const ParamValues& given, std::string_view name);

/// A layer-grouping schedule that groups tensors instead (message unit "tensor").
std::unique_ptr<Schedule> per_tensor(std::unique_ptr<Schedule> layer_schedule);

}  // namespace mgsim
