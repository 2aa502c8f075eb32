package bankops.support

import cats.effect.IO
import org.yaml.snakeyaml.{LoaderOptions, Yaml}
import org.yaml.snakeyaml.constructor.SafeConstructor

import scala.jdk.CollectionConverters._
import scala.util.chaining._

/** Runs a GitHub Actions workflow's shell steps here, as a runner would: jobs in the order of their `needs`, each
  * matrix leg in turn, every `run:` step in `bash --noprofile --norc -eo pipefail` from the checkout, with
  * `GITHUB_STEP_SUMMARY`, `GITHUB_OUTPUT`, `GITHUB_ENV` and `GITHUB_PATH` as temporary files (GITHUB_ENV and
  * GITHUB_PATH carried to the job's later steps) and `${{ }}` expressions substituted as GitHub would. `uses: ./` runs
  * the repository's own composite action (action.yml): its bash steps with its `inputs` (defaults, then `with:`).
  * Other `uses:` steps are the runner's business and skipped, except `actions/upload-artifact`, whose file (or directory
  * of files) must exist (it is kept as the run's artifact). After a failed step only steps with `if: always()` run.
  *
  * Expressions are kept simple on purpose: `inputs.X`, `matrix.X`, `env.X`, `vars.X`, `secrets.X`,
  * `needs.JOB.result`, `runner.temp`, `runner.os`, and `A || 'literal'`. Anything else in a place the harness
  * substitutes is an error, so a workflow cannot grow an expression the tests do not run.
  */
object WorkflowRunner {

  final case class Step(name: String, code: Int, out: String, err: String)
  final case class JobRun(job: String, matrix: Map[String, String], steps: List[Step], summary: String, artifacts: Map[String, os.Path],
                          skipped: Boolean = false) {
    def code: Int = steps.map(_.code).find(_ != 0).getOrElse(0)
    def ok: Boolean = !skipped && code == 0
    def log: String = steps.map(s => s"--- ${s.name}: exit ${s.code}\n${s.out}\n${s.err}").mkString("\n")
  }
  final case class Run(jobs: List[JobRun]) {
    def job(name: String): List[JobRun] = jobs.filter(_.job == name)
    def log: String = jobs.map(j => s"=== ${j.job} ${j.matrix}\n${j.log}\n--- summary:\n${j.summary}").mkString("\n")
  }

  /** The workflow as plain Scala values (maps, lists, strings). */
  def load(file: os.Path): Map[String, Any] = {
    val yaml = new Yaml(new SafeConstructor(new LoaderOptions))
    scalaOf(yaml.load[AnyRef](os.read(file))).asInstanceOf[Map[String, Any]]
  }

  private def scalaOf(v: Any): Any = v match {
    case m: java.util.Map[_, _] => m.asScala.toList.map { case (k, x) => String.valueOf(k) -> scalaOf(x) }.toMap
    case l: java.util.List[_] => l.asScala.toList.map(scalaOf)
    case null => ""
    case other => other
  }

  private def map(v: Any): Map[String, Any] = v match { case m: Map[_, _] => m.asInstanceOf[Map[String, Any]]; case _ => Map.empty }
  private def strings(v: Any): Map[String, String] = map(v).map { case (k, x) => k -> String.valueOf(x) }
  private def list(v: Any): List[Any] = v match { case l: List[_] => l; case "" => Nil; case one => List(one) }

  private val Expression = """\$\{\{\s*(.*?)\s*\}\}""".r

  /** What GitHub would put for `${{ expr }}`; unsupported expressions fail loudly. */
  def evaluate(expr: String, ctx: Map[String, String]): String =
    expr.split("\\|\\|").toList.map(_.trim).map { term =>
      if (term.matches("'[^']*'")) term.drop(1).dropRight(1)
      else if (term.matches("""(inputs|matrix|env|vars|secrets|runner|needs\.[A-Za-z0-9_-]+)\.[A-Za-z0-9_-]+""")) ctx.getOrElse(term, "")
      else throw new IllegalArgumentException(s"the workflow harness does not support the expression '$expr' (keep workflow expressions simple)")
    }.find(_.nonEmpty).getOrElse("")

  def substitute(text: String, ctx: Map[String, String]): String =
    Expression.replaceAllIn(text, m => java.util.regex.Matcher.quoteReplacement(evaluate(m.group(1), ctx)))

  /** `NAME=value` lines and `NAME<<DELIMITER` blocks, as GitHub reads GITHUB_ENV and GITHUB_OUTPUT. */
  def parseEnvFile(text: String): Map[String, String] = {
    val lines = text.linesIterator.toVector
    def go(i: Int, acc: Map[String, String]): Map[String, String] =
      if (i >= lines.size) acc
      else {
        val line = lines(i)
        val heredoc = line.indexOf("<<")
        val eq = line.indexOf('=')
        if (heredoc > 0 && (eq < 0 || heredoc < eq)) {
          val (name, delimiter) = (line.take(heredoc), line.drop(heredoc + 2))
          val body = lines.drop(i + 1).takeWhile(_ != delimiter)
          go(i + body.size + 2, acc.updated(name, body.mkString("\n")))
        } else if (eq > 0) go(i + 1, acc.updated(line.take(eq), line.drop(eq + 1)))
        else go(i + 1, acc)
      }
    go(0, Map.empty)
  }

  /** Jobs in an order that respects `needs`. */
  private def ordered(jobs: Map[String, Any]): List[String] = {
    def needs(j: String) = list(map(jobs(j)).getOrElse("needs", "")).map(String.valueOf)
    def visit(done: List[String], j: String): List[String] =
      if (done.contains(j)) done else needs(j).foldLeft(done)(visit) :+ j
    jobs.keys.toList.sorted.foldLeft(List.empty[String])(visit)
  }

  /** Every matrix leg of a job: the product of its matrix's lists (GitHub's include/exclude are not supported). */
  private def legs(job: Map[String, Any]): List[Map[String, String]] = {
    val matrix = map(map(job.getOrElse("strategy", "")).getOrElse("matrix", ""))
    require(!matrix.contains("include") && !matrix.contains("exclude"), "the workflow harness does not support matrix include/exclude")
    matrix.toList.sortBy(_._1).foldLeft(List(Map.empty[String, String])) { case (acc, (k, vs)) =>
      for { leg <- acc; v <- list(vs) } yield leg.updated(k, String.valueOf(v))
    }
  }

  /** Runs the workflow. `inputs` are workflow_dispatch inputs (the workflow's defaults fill the rest, booleans as
    * `true`/`false`); `env` overrides the workflow's own `env:`; `base` is the process environment of every step.
    */
  def run(file: os.Path, inputs: Map[String, String] = Map.empty, vars: Map[String, String] = Map.empty, secrets: Map[String, String] = Map.empty,
          env: Map[String, String] = Map.empty, base: Map[String, String] = Map.empty, cwd: os.Path = Repo.root): IO[Run] = IO.blocking {
    val wf = load(file)
    // snakeyaml reads the key `on` as a boolean true (YAML 1.1), which String.valueOf gives as "true".
    val on = map(wf.getOrElse("on", wf.getOrElse("true", "")))
    val defaults = map(map(on.getOrElse("workflow_dispatch", "")).getOrElse("inputs", "")).map { case (k, spec) =>
      k -> String.valueOf(map(spec).getOrElse("default", ""))
    }
    val allInputs = defaults ++ inputs
    val temp = os.temp.dir(prefix = "workflow-runner")
    val common = allInputs.map { case (k, v) => s"inputs.$k" -> v } ++ vars.map { case (k, v) => s"vars.$k" -> v } ++
      secrets.map { case (k, v) => s"secrets.$k" -> v } ++ Map("runner.temp" -> temp.toString, "runner.os" -> "Linux")
    val workflowEnv = strings(wf.getOrElse("env", "")).map { case (k, v) => k -> substitute(v, common) } ++ env
    val jobs = map(wf("jobs"))
    ordered(jobs).foldLeft(List.empty[JobRun]) { (done, name) =>
      val job = map(jobs(name))
      val needs = list(job.getOrElse("needs", "")).map(String.valueOf)
      val needCtx = needs.map(n => s"needs.$n.result" -> (if (done.filter(_.job == n).forall(_.ok)) "success" else "failure")).toMap
      val always = String.valueOf(job.getOrElse("if", "")).contains("always()")
      if (!always && needs.exists(n => !done.filter(_.job == n).forall(_.ok)))
        done :+ JobRun(name, Map.empty, Nil, "", Map.empty, skipped = true)
      else done ++ legs(job).map { leg =>
        val ctx0 = common ++ needCtx ++ leg.map { case (k, v) => s"matrix.$k" -> v }
        val jobEnv = workflowEnv ++ strings(job.getOrElse("env", "")).map { case (k, v) => k -> substitute(v, ctx0 ++ envCtx(workflowEnv)) }
        runJob(name, leg, job, jobEnv, ctx0, base, temp, cwd)
      }
    }.pipe(Run(_))
  }

  private def envCtx(env: Map[String, String]): Map[String, String] = env.map { case (k, v) => s"env.$k" -> v }

  private def runJob(name: String, leg: Map[String, String], job: Map[String, Any], jobEnv: Map[String, String], ctx: Map[String, String],
                     base: Map[String, String], temp: os.Path, cwd: os.Path): JobRun = {
    val dir = os.temp.dir(temp, prefix = s"$name-")
    val (summary, githubEnv, githubPath) = (dir / "step_summary.md", dir / "env", dir / "path")
    os.write(summary, ""); os.write(githubEnv, ""); os.write(githubPath, "")
    val shell = map(map(job.getOrElse("defaults", "")).getOrElse("run", "")).getOrElse("shell", "bash")
    require(shell == "bash", s"job $name: the workflow harness runs bash steps only, not $shell")
    val steps = List.newBuilder[Step]
    /** One bash step, as a runner runs it: PATH led by what earlier steps added to GITHUB_PATH (the latest first). */
    def shellStep(label: String, script: String, env: Map[String, String], id: String): Int = {
      val output = dir / s"output-$id"
      os.write.over(output, "")
      val file = dir / s"step-$id.sh"
      os.write.over(file, script)
      val added = os.read.lines(githubPath).filter(_.nonEmpty).reverse
      val path = (added ++ (env ++ base).get("PATH").toList).mkString(":")
      val processEnv = base ++ Map("GITHUB_STEP_SUMMARY" -> summary.toString, "GITHUB_ENV" -> githubEnv.toString,
        "GITHUB_OUTPUT" -> output.toString, "GITHUB_PATH" -> githubPath.toString,
        "RUNNER_TEMP" -> temp.toString, "RUNNER_OS" -> "Linux", "GITHUB_ACTIONS" -> "true", "CI" -> "true", "GITHUB_WORKSPACE" -> cwd.toString) ++
        env ++ Map("PATH" -> path)
      val r = os.proc("bash", "--noprofile", "--norc", "-eo", "pipefail", file.toString)
        .call(cwd = cwd, env = processEnv, propagateEnv = false, check = false, stdin = "", stdout = os.Pipe, stderr = os.Pipe)
      steps += Step(label, r.exitCode, r.out.text(), r.err.text())
      r.exitCode
    }
    val artifacts = Map.newBuilder[String, os.Path]
    var failed = false
    list(job.getOrElse("steps", "")).map(map).zipWithIndex.foreach { case (step, i) =>
      val carried = parseEnvFile(os.read(githubEnv))
      val env0 = jobEnv ++ carried
      val stepCtx = ctx ++ envCtx(env0)
      val label = substitute(String.valueOf(step.getOrElse("name", step.getOrElse("uses", s"step $i"))), stepCtx)
      // A step runs while the job is going well, or always with `if: always()`.
      if (!failed || String.valueOf(step.getOrElse("if", "")).contains("always()")) step.get("uses").map(String.valueOf) match {
        case Some(action) if action.startsWith("actions/upload-artifact@") =>
          val w = strings(step.getOrElse("with", "")).map { case (k, v) => k -> substitute(v, stepCtx) }
          val path = os.Path(w("path"), cwd)
          // A file, or a directory with files in it (uploaded whole).
          val found = os.isFile(path) || (os.isDir(path) && os.walk(path).exists(os.isFile(_)))
          val ok = found || w.get("if-no-files-found").forall(_ != "error")
          if (found) artifacts += w.getOrElse("name", "artifact") -> path
          steps += Step(label, if (ok) 0 else 1, "", if (ok) "" else s"upload-artifact: no file at $path")
          failed = failed || !ok
        case Some("./") =>
          // The repository's own action: its bash steps in turn, `inputs` from its defaults and this step's `with:`.
          val action = load(cwd / "action.yml")
          val runs = map(action("runs"))
          require(runs.get("using").contains("composite"), "the workflow harness runs composite actions only")
          val given = strings(step.getOrElse("with", "")).map { case (k, v) => k -> substitute(v, stepCtx) }
          val declared = map(action.getOrElse("inputs", "")).map { case (k, spec) => k -> String.valueOf(map(spec).getOrElse("default", "")) }
          require(given.keySet.subsetOf(declared.keySet), s"step $label: with: ${given.keySet -- declared.keySet} not among the action's inputs")
          val actionCtx = ctx ++ (declared ++ given).map { case (k, v) => s"inputs.$k" -> v }
          // A failed step ends the action: `exists` stops at it.
          val actionFailed = list(runs.getOrElse("steps", "")).map(map).zipWithIndex.iterator.filter(_._1.contains("run")).map { case (a, j) =>
            require(a.get("shell").contains("bash"), s"action step ${a.getOrElse("name", j)}: the workflow harness runs bash steps only")
            val aCtx = actionCtx ++ envCtx(env0)
            val aEnv = strings(a.getOrElse("env", "")).map { case (k, v) => k -> substitute(v, aCtx) } + ("GITHUB_ACTION_PATH" -> cwd.toString)
            shellStep(s"$label: ${a.getOrElse("name", j)}", substitute(String.valueOf(a("run")), aCtx), env0 ++ aEnv, s"$i-$j")
          }.exists(_ != 0)
          failed = actionFailed || failed
        case Some(_) => () // checkout, setup-java, cache: the runner's part, already true here
        case None =>
          val stepEnv = strings(step.getOrElse("env", "")).map { case (k, v) => k -> substitute(v, stepCtx) }
          failed = shellStep(label, substitute(String.valueOf(step("run")), stepCtx), env0 ++ stepEnv, i.toString) != 0 || failed
      }
    }
    JobRun(name, leg, steps.result(), os.read(summary), artifacts.result())
  }
}
