package bankops.jobs.deploy

import cats.effect.IO
import io.circe.Json
import io.circe.parser.parse
import org.apache.kafka.clients.admin.{Admin, ScramMechanism, UserScramCredentialDeletion}
import org.apache.kafka.common.acl.{AccessControlEntryFilter, AclBindingFilter, AclOperation, AclPermissionType}
import org.apache.kafka.common.resource.ResourcePatternFilter
import org.apache.kafka.common.errors.SaslAuthenticationException

import scala.concurrent.duration._
import scala.jdk.CollectionConverters._

import bankops.services.kafka.KafkaClients
import bankops.services.plan.TopicSync
import bankops.support.{IOSuite, KafkaTools, Repo, SandboxFixture, TestShell, TopologyFiles, TopologyFixture}
import bankops.support.OnSandbox

/** `plan`/`apply` of ACLs and SCRAM users on the sandbox's cluster, which runs the StandardAuthorizer; drift made
  * with Kafka's own AclCommand. Each topology is the bank's (so the bank's ACLs and users stay listed and
  * `--delete-unlisted --yes` leaves them be) plus a topic, a principal and a SCRAM user of the test's own.
  */
class AccessDeploySuite extends IOSuite with OnSandbox {
  // Alone, and quiet: it applies the real topology and deletes the ACLs it does not list, the test banks' among them.
  override def quiet: Boolean = true

  override val munitIOTimeout: Duration = 5.minutes

  private def bankops(env: Map[String, String], args: String*): IO[TestShell.Result] =
    SandboxFixture.connection >> TestShell.run(args.toList, SandboxFixture.env ++ env, Repo.root)

  /** Kafka's own AclCommand as the operator (a super user): an independent reader and writer of ACLs. */
  private def aclCommand(args: String*): IO[String] = KafkaTools.run("org.apache.kafka.tools.AclCommand", args: _*)

  private def aclsOf(principal: String): IO[String] = aclCommand("--list", "--principal", principal)

  private def scramUsers: IO[Set[String]] = SandboxFixture.settings.flatMap(s =>
    KafkaClients.javaAdmin(s.kafka).use(a => KafkaClients.await(a.describeUserScramCredentials().all()).map(_.asScala.keySet.toSet)))

  /** What SCRAM user `user` with `password` sees of `topic` on the sandbox's SASL_SSL listener: its partitions, or the error. */
  private def describeAs(user: String, password: String, topic: String): IO[Either[Throwable, Int]] = IO.blocking {
    val props = new java.util.Properties()
    val in = os.read.inputStream(SandboxFixture.layout.dir / "identities" / "loader-scram.properties")
    try props.load(in)
    finally in.close()
    props.put("sasl.jaas.config", s"""org.apache.kafka.common.security.scram.ScramLoginModule required username="$user" password="$password";""")
    props.put("bootstrap.servers", s"localhost:${SandboxFixture.sandboxSettings.kafkaPort + 2}")
    props.put("request.timeout.ms", "10000")
    props.put("default.api.timeout.ms", "20000")
    Admin.create(props)
  }.bracket(a => KafkaClients.await(a.describeTopics(java.util.List.of(topic)).allTopicNames()).map(_.get(topic).partitions.size).attempt)(a =>
    IO.blocking(a.close(java.time.Duration.ofSeconds(5))))

  /** Removes what a test granted, so later suites on the same sandbox see no drift from this one. */
  private def cleanUp(principal: String, user: String): IO[Unit] = SandboxFixture.settings.flatMap(s =>
    KafkaClients.javaAdmin(s.kafka).use { a =>
      val acls =
        new AclBindingFilter(ResourcePatternFilter.ANY, new AccessControlEntryFilter(principal, null, AclOperation.ANY, AclPermissionType.ANY))
      KafkaClients.await(a.deleteAcls(java.util.List.of(acls)).all()) >>
        KafkaClients.await(a.alterUserScramCredentials(java.util.List.of(new UserScramCredentialDeletion(user, ScramMechanism.SCRAM_SHA_512))).all())
    }).void

  private def topics: IO[Set[String]] = SandboxFixture.settings.flatMap(s => KafkaClients.admin(s.kafka).use(_.listTopics.names))

  /** The bank's topology with one more topic (`topic`, Heartbeat records), `principal` a consumer of it in group `group`,
    * and SCRAM user `user` whose password is in `variable`; `config`: the topic's configs.
    */
  private def topology(topic: String, principal: String, group: String, user: String, variable: String, config: Json = Json.obj()): os.Path = {
    val bank = parse(os.read(Repo.root / "schemas" / "topology.json")).fold(throw _, identity)
    val extraTopic = Json.obj(topic ->
      parse(
        """{"partitions": 1, "replicationFactor": 3, "records": [{"type": "nl.openweb.data.Heartbeat", "key": "time"}]}""").toOption.get
        .deepMerge(Json.obj("config" -> config)))
    val extraAccess = Json.obj(principal -> Json.arr(Json.obj("role" -> Json.fromString("consumer"),
        "topics" -> Json.arr(Json.fromString(topic)), "group" -> Json.fromString(group))))
    val extraUser = Json.obj(user -> Json.obj("password" -> Json.obj("env" -> Json.fromString(variable))))
    val merged = bank.deepMerge(Json.obj("topics" -> extraTopic, "access" -> extraAccess, "users" -> extraUser))
    TopologyFiles.write(merged.spaces2)
  }

  /** The environment the sandbox's topology takes on a small cluster. */
  private val environment: IO[List[String]] = SandboxFixture.connection.map(_ =>
    SandboxFixture.sandboxSettings.topologyEnvironment.toList.flatMap(e => List("--environment", e)))

  private def jsonLines(out: String): List[Json] = out.linesIterator.filter(_.startsWith("{")).map(parse(_).fold(throw _, identity)).toList

  /** (action, principal) of each ACL a plan lists (`{"acls": [...]}`) or an apply made (`{"acl": {...}, "ok": true}`). */
  private def aclActions(out: String): List[(String, String)] = for {
    line <- jsonLines(out)
    acl <- line.hcursor.downField("acls").as[List[Json]].getOrElse(Nil) ++ line.hcursor.downField("acl").focus.toList
  } yield acl.hcursor.get[String]("action").getOrElse("") -> acl.hcursor.get[String]("principal").getOrElse("")

  test("apply creates ACLs and a SCRAM user; plan after apply is empty; AclCommand's drift is shown and kept; --delete-unlisted --yes deletes it") {
    val id = TopologyFixture.unique("acl")
    val (principal, user, variable) = (s"User:$id-svc", s"$id-svc", "BANKOPS_TEST_SCRAM_PASSWORD")
    val file = topology(s"$id-t", principal, s"$id-g", user, variable)
    val drifter = s"User:$id-drift"
    val env = Map(variable -> "s3cret-for-the-test")
    for {
      e <- environment
      applied <- bankops(env, List("apply", "--topology", file.toString, "-o", "json") ++ e: _*)
      granted <- aclsOf(principal)
      users <- scramUsers
      signedIn <- describeAs(user, env(variable), s"$id-t")
      wrongPassword <- describeAs(user, "not-the-password", s"$id-t")
      plan <- bankops(Map.empty, List("plan", "--topology", file.toString, "-o", "json") ++ e: _*)
      _ <- aclCommand("--add", "--allow-principal", drifter, "--operation", "Read", "--topic", s"$id-t")
      drift <- bankops(Map.empty, List("plan", "--topology", file.toString, "-o", "json") ++ e: _*)
      wouldDelete <- bankops(Map.empty, List("plan", "--topology", file.toString, "--delete-unlisted", "-o", "json") ++ e: _*)
      driftTable <- bankops(Map.empty, List("plan", "--topology", file.toString, "-o", "table") ++ e: _*)
      kept <- bankops(Map.empty, List("apply", "--topology", file.toString) ++ e: _*)
      stillThere <- aclsOf(drifter)
      unconfirmed <- bankops(Map.empty, List("apply", "--topology", file.toString, "--delete-unlisted") ++ e: _*)
      deleted <- bankops(Map.empty, List("apply", "--topology", file.toString, "--delete-unlisted", "--yes", "-o", "json") ++ e: _*)
      gone <- aclsOf(drifter)
      after <- bankops(Map.empty, List("plan", "--topology", file.toString, "-o", "json") ++ e: _*)
      bankAcls <- aclsOf("User:handler")
      _ <- cleanUp(principal, user)
    } yield {
      assertEquals(applied.code, 0, applied.err + applied.out)
      assert(granted.contains(s"$id-t") && granted.contains("READ") && granted.contains(s"$id-g"), granted)
      assert(users.contains(user) && users.contains("handler"), users)
      assertEquals(signedIn, Right(1), "the new SCRAM user signs in with the declared password and may describe its topic")
      assert(wrongPassword.left.exists(e => TopicSync.unwrap(e).isInstanceOf[SaslAuthenticationException]), wrongPassword)
      assertEquals(plan.code, 0, plan.err + plan.out)
      assertEquals(aclActions(plan.out).filter(_._1 != "unlisted"), Nil, plan.out)
      assertEquals(drift.code, 0, s"drift alone is not a pending change: ${drift.err}")
      assert(aclActions(drift.out).contains("unlisted" -> drifter), drift.out)
      assertEquals(wouldDelete.code, 1, s"plan --delete-unlisted shows the deletion as pending: ${wouldDelete.err}")
      assert(aclActions(wouldDelete.out).contains("delete" -> drifter), wouldDelete.out)
      assert(drift.err.contains("not in the topology; left alone (--delete-unlisted --yes deletes them)"), drift.err)
      assert(driftTable.out.linesIterator.exists(l => l.startsWith("unlisted") && l.contains(drifter) && l.contains(s"topic:$id-t")),
        driftTable.out)
      assert(driftTable.out.contains("ACL") && driftTable.out.contains("USER"), driftTable.out)
      assertEquals(kept.code, 0, kept.err)
      assert(stillThere.contains(s"$id-t") && stillThere.contains("READ"), s"apply without --delete-unlisted keeps drift: $stillThere")
      assertEquals(unconfirmed.code, 2, unconfirmed.err)
      assert(unconfirmed.err.contains("--delete-unlisted deletes ACLs and SCRAM users: add --yes to confirm"), unconfirmed.err)
      assertEquals(deleted.code, 0, deleted.err + deleted.out)
      assert(aclActions(deleted.out).contains("delete" -> drifter), deleted.out)
      assert(!gone.contains(s"$id-t"), gone)
      assertEquals(after.code, 0, after.err + after.out)
      assertEquals(aclActions(after.out), Nil, after.out)
      assert(bankAcls.contains("bankops-command-handler"), s"the bank's own ACLs are listed, so kept: $bankAcls")
    }
  }

  test("a refused part changes nothing: a missing password, an incompatible schema, a refused topic config leave topics, ACLs, users and schemas") {
    val id = TopologyFixture.unique("gate")
    val (principal, user, variable) = (s"User:$id-svc", s"$id-svc", s"BANKOPS_TEST_${id.filter(_.isLetterOrDigit).toUpperCase}_PASSWORD")
    val file = topology(s"$id-t", principal, s"$id-g", user, variable)
    val incompatible = topology(s"$id-t", principal, s"$id-g", user, variable)
    os.write.over(incompatible / os.up / "Heartbeat.avsc",
      """{"type":"record","name":"Heartbeat","namespace":"nl.openweb.data",""" +
        """"fields":[{"name":"beat","type":"long"},{"name":"node","type":"string"}]}""")
    // A topic config the broker refuses (asked with validateOnly): the gate's third kind of refusal.
    val badConfig = topology(s"$id-t", principal, s"$id-g", user, variable, Json.obj("no.such.setting" -> Json.fromString("1")))
    for {
      e <- environment
      missing <- bankops(Map.empty, List("apply", "--topology", file.toString) ++ e: _*)
      gated <- bankops(Map(variable -> "pw"), List("apply", "--topology", incompatible.toString) ++ e: _*)
      refusedTopic <- bankops(Map(variable -> "pw"), List("apply", "--topology", badConfig.toString) ++ e: _*)
      names <- topics
      acls <- aclsOf(principal)
      users <- scramUsers
      r <- SandboxFixture.registry
      subject <- r.version(s"$id-t-nl.openweb.data.Heartbeat")
    } yield {
      assertEquals(missing.code, 2, missing.err)
      assert(
        missing.err.linesIterator.contains(
          s"refused: users.$user: the environment variable $variable holding the password of SCRAM user $user is not set"), missing.err)
      assert(missing.err.contains("apply: the gate failed; nothing was changed"), missing.err)
      assertEquals(gated.code, 1, gated.err)
      assertEquals(refusedTopic.code, 2, refusedTopic.err)
      assert(refusedTopic.err.contains("no.such.setting") && refusedTopic.err.contains("nothing was changed"), refusedTopic.err)
      assert(gated.err.contains("incompatible: heartbeat-nl.openweb.data.Heartbeat"), gated.err)
      assert(!names.contains(s"$id-t"), names)
      assert(!acls.contains(s"$id-t"), acls)
      assert(!users.contains(user), users)
      assertEquals(subject, None)
    }
  }
}
