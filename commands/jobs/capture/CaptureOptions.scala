package bankops.jobs.capture

import scala.concurrent.duration.FiniteDuration

import bankops.services.config.ConnectionFlags
import bankops.services.contracts.{SubjectNameStrategy, TopologyChoice}
import bankops.services.kafka.{RecordFilter, StartAt, StopAt}

/** What `capture` reads (topics in a window, narrowed by inspect's filters), which groups' offsets it keeps, and where
  * the archive goes.
  */
final case class CaptureOptions(flags: ConnectionFlags, topics: List[String], from: StartAt, to: StopAt, fromText: String, toText: String,
                                filter: RecordFilter, filterText: List[String], groups: List[String], out: os.Path, overwrite: Boolean,
                                dryRun: Boolean, topology: TopologyChoice, strategy: Option[SubjectNameStrategy], timeout: FiniteDuration)
