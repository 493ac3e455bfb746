#pragma once
// What a counting session has to say, the same on both sides of the agent's socket: the
// agent's PapiSession fills it, the preload's CounterClient receives it.
#include <map>
#include <string>
#include <vector>

namespace hpcsens::agent {

class CounterReadings {
 public:
  const std::string& status() const { return status_; }
  const std::vector<std::string>& notes() const { return notes_; }
  const std::map<std::string, double>& values() const { return values_; }
  bool multiplexed() const { return multiplexed_; }
  const std::string& event_set() const { return event_set_; }
  // Per counted event, the fraction of its enabled time it counted; empty: not known, and
  // running_fraction_reason() says why (or, when known, how: counter_agent/running_fraction.h).
  const std::map<std::string, double>& running_fraction() const { return running_fraction_; }
  const std::string& running_fraction_reason() const { return running_fraction_reason_; }
  // True when the status is worth a warning (the user did not simply ask for no counters).
  bool warn() const { return warn_; }

 protected:
  void fail(const std::string& why) {
    status_ = why;
    warn_ = true;
  }

  bool multiplexed_ = false;
  bool warn_ = false;
  std::string status_ = "ok";
  std::vector<std::string> notes_;
  std::map<std::string, double> values_;
  std::string event_set_;
  std::map<std::string, double> running_fraction_;
  std::string running_fraction_reason_;
};

}  // namespace hpcsens::agent
