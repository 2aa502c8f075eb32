package bankops.services.kafka

import org.apache.kafka.common.KafkaException
import org.apache.kafka.common.errors.{
  ClusterAuthorizationException, GroupAuthorizationException, TopicAuthorizationException, TransactionalIdAuthorizationException
}

import java.util.concurrent.ExecutionException
import scala.jdk.CollectionConverters._

import bankops.base.{Failure, Failures}

/** Kafka's refusals, constructed as the clients raise them, turned into the one line naming operation, resource and identity. */
class DeniedSuite extends munit.FunSuite {
  private val me = "CN=reader (from BANKOPS_COMMAND_CONFIG)"
  private def line(e: Throwable, doing: Doing) = Denied.failure(e, doing, me).map(f => (f.message, f.exitCode))

  test("a producer's refused topic: WRITE, the topic Kafka named, the identity; exit 4") {
    val e = new TopicAuthorizationException(Set("commands").asJava)
    assertEquals(line(e, Doing.writing(List("commands"))), Some((s"not authorized to WRITE topic commands as $me", 4)))
  }

  test("the same exception read by a consumer or an admin names READ or DESCRIBE; wrapped as the clients wrap it") {
    val e = new ExecutionException(new KafkaException("failed", new TopicAuthorizationException(Set("b", "a").asJava)))
    assertEquals(line(e, Doing.reading(List("a"))).map(_._1), Some(s"not authorized to READ topics a, b as $me"))
    assertEquals(line(e, Doing.describing(Nil)).map(_._1), Some(s"not authorized to DESCRIBE topics a, b as $me"))
  }

  test("a topic exception without names falls back to the topics being used") {
    val e = new TopicAuthorizationException("Not authorized to access topics: []")
    assertEquals(line(e, Doing.writing(List("heartbeat"))).map(_._1), Some(s"not authorized to WRITE topic heartbeat as $me"))
    assertEquals(line(e, Doing.Unknown).map(_._1), Some(s"not authorized to use a topic the broker did not name as $me"))
  }

  test("groups, transactional ids and the cluster") {
    assertEquals(line(GroupAuthorizationException.forGroupId("bankops-command-handler"), Doing.readingInGroup("x", List("commands"))).map(_._1),
      Some(s"not authorized to READ group bankops-command-handler as $me"))
    assertEquals(line(new GroupAuthorizationException("no"), Doing.deletingGroups.copy(group = Some("g"))).map(_._1),
      Some(s"not authorized to DELETE group g as $me"))
    assertEquals(line(new TransactionalIdAuthorizationException("Transactional Id authorization failed."),
        Doing.writingTransactionally("bankops-command-handler-sandbox", List("command_feedback"), Some("g"))).map(_._1),
      Some(s"not authorized to WRITE transactional-id bankops-command-handler-sandbox as $me"))
    assertEquals(line(new ClusterAuthorizationException("Cluster authorization failed."), Doing.creating(List("t"))).map(_._1),
      Some(s"not authorized to CREATE on the cluster as $me"))
  }

  test("an idempotent producer refused its producer id (no WRITE on any topic) names the topic it meant to write") {
    val e = new KafkaException("fatal", new ClusterAuthorizationException("Cluster authorization failed."))
    val m = line(e, Doing.writing(List("commands"))).get._1
    assert(m.startsWith(s"not authorized to WRITE topic commands (") && m.endsWith(s" as $me"), m)
  }

  test("a tag set where the request was made wins over the edge's default; bankops' own failures pass untouched") {
    val tagged = Denied.tag(Doing.describingConfigs(List("t")))(new ExecutionException(new TopicAuthorizationException(Set("t").asJava)))
    assertEquals(line(new RuntimeException("outer", tagged), Doing.writing(List("x"))).map(_._1),
      Some(s"not authorized to DESCRIBE_CONFIGS topic t as $me"))
    assertEquals(Denied.tag(Doing.reading(Nil)).lift(tagged), None)
    assertEquals(Denied.describe(tagged), Some("DESCRIBE_CONFIGS topic t"))
    assertEquals(line(Failure.BadInput("topic t does not exist"), Doing.reading(Nil)), None)
    assertEquals(line(new RuntimeException("boom"), Doing.reading(Nil)), None)
  }

  test("Failures.classify: the net under untagged code is exit 4 too, and NotAuthorized keeps its line") {
    assertEquals(Failures.classify(new TopicAuthorizationException(Set("t").asJava))._2, 4)
    assertEquals(Failures.classify(Failure.NotAuthorized("not authorized to WRITE topic t as x")), ("not authorized to WRITE topic t as x", 4))
    assert(Denied.isRefusal(new KafkaException(new GroupAuthorizationException("g"))))
    assert(!Denied.isRefusal(new KafkaException("other")))
  }
}
