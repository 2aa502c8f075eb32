package bankops.jobs.sandbox

import bankops.base.Failure

/** The sandbox's services in start order. Each wave of `infrastructure` starts together once the wave before it
  * answers (the brokers must: a node is ready only once a quorum of controllers formed); the bank's services start
  * after the topology is set up on them. Stopping goes through the waves in reverse, each wave together.
  */
private[sandbox] final class SandboxServices(ctx: SandboxContext) {
  private val postgres = new PostgresService(ctx)
  val brokers: List[KafkaService] = ctx.settings.nodes.map(new KafkaService(ctx, _))
  private val registry = new RegistryService(ctx)
  val handler: HandlerService = new HandlerService(ctx, brokers = brokers)

  val infrastructure: List[List[SandboxService]] = List(List(postgres), brokers ++ List(registry))
  val bank: List[SandboxService] = List(handler)
  val waves: List[List[SandboxService]] = infrastructure :+ bank
  val all: List[SandboxService] = waves.flatten

  def names: List[String] = all.map(_.name)

  /** An unknown name is a usage error naming the known ones. */
  def named(name: String): Either[Failure, SandboxService] =
    all.find(_.name == name).toRight(Failure.BadInput(s"unknown service '$name' (one of ${names.mkString(", ")})"))
}
