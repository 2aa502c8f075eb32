package bankops.jobs.sandbox

import bankops.base.Failure

/** The sandbox's services in start order. Each wave of `infrastructure` starts together once the wave before it
  * answers; the bank's services start after the topology is set up on them. Stopping goes through `all` in reverse.
  * More brokers are more entries in the Kafka wave.
  */
final class SandboxServices(ctx: SandboxContext) {
  private val postgres = new PostgresService(ctx)
  private val kafka = new KafkaService(ctx)
  private val registry = new RegistryService(ctx)
  val handler: HandlerService = new HandlerService(ctx, brokers = List(kafka))

  val infrastructure: List[List[SandboxService]] = List(List(postgres), List(kafka, registry))
  val bank: List[SandboxService] = List(handler)
  val all: List[SandboxService] = infrastructure.flatten ++ bank

  def names: List[String] = all.map(_.name)

  /** An unknown name is a usage error naming the known ones. */
  def named(name: String): Either[Failure, SandboxService] =
    all.find(_.name == name).toRight(Failure.BadInput(s"unknown service '$name' (one of ${names.mkString(", ")})"))
}
